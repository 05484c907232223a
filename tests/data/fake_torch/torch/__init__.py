"""A stand-in for PyTorch, just enough of it for scripts/compare-torch-matmul.py,
so the script is tested on machines without a GPU or PyTorch
(tests/cli/test_compare_torch_matmul.sh). Nothing is computed: every product
"takes" 2*n^3 / (FAKE_TORCH_TFLOPS * 1e12) seconds on a clock that only the
products advance, so the rate the script measures is exactly FAKE_TORCH_TFLOPS.

FAKE_TORCH_NO_FP8=1 leaves out torch._scaled_mm, as an older PyTorch does.
FAKE_ORDER_LOG=FILE gets a line "torch" each time a measurement starts.
"""
import os

__version__ = "0.0-fake"
_clock_s = 0.0
bfloat16, float16, float32, float64, float8_e4m3fn, int8 = (
    "bfloat16", "float16", "float32", "float64", "float8_e4m3fn", "int8")


class _Tensor:
    def __init__(self, n):
        self.n = n

    def __mul__(self, _):
        return self

    def __sub__(self, _):
        return self

    def to(self, _dtype):
        return self

    def t(self):
        return self


def _product(a, _b):
    global _clock_s
    _clock_s += 2.0 * a.n ** 3 / (float(os.environ.get("FAKE_TORCH_TFLOPS", "100")) * 1e12)
    return a


def device(_name):
    return _name


class Generator:
    def __init__(self, device=None):
        log = os.environ.get("FAKE_ORDER_LOG")
        if log:
            with open(log, "a") as f:
                f.write("torch\n")

    def manual_seed(self, _seed):
        return self


def rand(n, _m, device=None, generator=None):
    return _Tensor(n)


def randint(_lo, _hi, shape, device=None, dtype=None, generator=None):
    return _Tensor(shape[0])


def tensor(_value, device=None):
    return _Tensor(1)


def matmul(a, b):
    return _product(a, b)


def _int_mm(a, b):
    return _product(a, b)


if not os.environ.get("FAKE_TORCH_NO_FP8"):
    def _scaled_mm(a, b, scale_a=None, scale_b=None, out_dtype=None):
        return _product(a, b)


class _Matmul:
    allow_tf32 = False


class _BackendsCuda:
    matmul = _Matmul()


class backends:
    cuda = _BackendsCuda()


class _Event:
    def __init__(self, enable_timing=False):
        self.t = 0.0

    def record(self):
        self.t = _clock_s

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3  # milliseconds, as CUDA events give


class cuda:
    Event = _Event

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def set_device(_i):
        pass

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def empty_cache():
        pass

    @staticmethod
    def get_device_name(_i):
        return "Fake GPU"
