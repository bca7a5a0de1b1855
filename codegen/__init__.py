"""Code generation toolkit for fused GEMM + reduce-scatter / all-reduce kernels.

Kept import-free on purpose: rendered kernels import ``codegen.*`` helpers, and every module
this file imported would become part of every cache key.
"""
