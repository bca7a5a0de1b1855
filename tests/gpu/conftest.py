"""GPU tests: every test is marked `gpu`; the tests/ conftest skips them without a GPU."""
import os
import sys

# Virtual ranks need their streams on distinct hardware queues (see VirtualGroup); this must be
# set before CUDA initialises, which no collected module does at import.
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "32")
sys.path.insert(0, os.path.dirname(__file__))
