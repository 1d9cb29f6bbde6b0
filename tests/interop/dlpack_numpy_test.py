#!/usr/bin/env python3
"""memfmt/interop/dlpack.hpp checked by a real consumer and producer: NumPy.

memfmt tensors (the pybind11 module memfmt_dlpack_py, tests/interop/dlpack_module.cpp)
go to numpy.from_dlpack: plain, strided, views, blocked ones unfolded or with logical
dims, every data type NumPy has (bf16 it refuses: that refusal is checked). NumPy arrays
come back through their __dlpack__: contiguous, transposed, sliced, every type memfmt
has, and tensors with a byte offset from a producer of the module's. Values are compared
bit for bit, element by element, with values this script computes itself (the pattern of
dlpack_module.cpp, or NumPy's own arrays), NaN, infinities and -0 among them. Refusals are
checked by message, and every deleter is checked to run once (memfmt's exports counted by
the module, NumPy's by the reference its capsule holds on the array).

Run by CTest (interop.dlpack.numpy) with the interpreter the module was built for and the
module on PYTHONPATH. Without NumPy or the module it fails; it never skips.
"""
import gc
import sys
import traceback

try:
    import numpy as np
except ImportError as e:
    print(f"FAILED: {sys.executable} cannot import numpy ({e}); Debian: apt-get install python3-numpy")
    sys.exit(1)
try:
    import memfmt_dlpack_py as mf
except ImportError as e:
    print(f"FAILED: cannot import the module memfmt_dlpack_py ({e}); PYTHONPATH={sys.path[:3]}")
    sys.exit(1)

KDLCPU, KDLCUDA = 1, 2
KDLINT, KDLUINT, KDLFLOAT, KDLBFLOAT = 0, 1, 2, 4

# memfmt's types as NumPy's, and the unsigned type of their bits
NUMPY_TYPE = {"f32": np.float32, "f16": np.float16, "s32": np.int32, "s8": np.int8, "u8": np.uint8, "f64": np.float64}
BITS_TYPE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0])


def pattern(dtype, shape, seed=0):
    """The bits dlpack_module.cpp's Tensor.fill(seed) writes: element number i, k = i + seed."""
    k = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) + seed
    if dtype in ("s8", "u8"):
        return ((37 * k + 11) % 256).astype(np.uint8)
    if dtype == "s32":
        return ((2654435761 * k + 7) % 2**32).astype(np.uint32)
    values = ((13 * k + 5) % 101 - 50) / 4.0
    special = k % 7 == 3
    values[special] = SPECIALS[(k // 7 % 4)[special]]
    if dtype == "f32":
        return values.astype(np.float32).view(np.uint32)
    if dtype == "f64":
        return values.astype(np.float64).view(np.uint64)
    if dtype == "f16":
        return values.astype(np.float16).view(np.uint16)
    assert dtype == "bf16"
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bits(a):
    """The bits of every element of `a`: NaN payloads, infinities and -0 compare exactly."""
    return a.view(BITS_TYPE[a.itemsize])


def same_bits(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    differ = np.argwhere(bits(got) != want) if got.size else []
    assert len(differ) == 0, (f"{what}: {len(differ)} elements differ, the first at {tuple(differ[0])}: "
                              f"{bits(got)[tuple(differ[0])]:#x} instead of {want[tuple(differ[0])]:#x}")


def each_index(shape):
    return np.ndindex(*shape)


def raises(kind, words, call):
    try:
        call()
    except kind as e:
        for w in words:
            assert w in str(e), f"expected {w!r} in the message: {e}"
        return str(e)
    raise AssertionError(f"expected {kind.__name__} with {words}, nothing raised")


class Producer:
    """An object whose __dlpack__ hands out a given capsule (as a framework would)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule


# ---- memfmt -> NumPy ---------------------------------------------------------------


def test_plain_tensors():
    for dt, npt in NUMPY_TYPE.items():
        for tag, order in (("nchw", (0, 1, 2, 3)), ("nhwc", (0, 2, 3, 1)), ("chwn", (1, 2, 3, 0))):
            t = mf.Tensor([2, 3, 5, 4], dt, tag)
            t.fill(seed=1)
            a = np.from_dlpack(t)
            what = f"{dt} {tag}"
            assert a.dtype == npt, f"{what}: {a.dtype}"
            assert a.ctypes.data == t.data_address, f"{what}: NumPy copied the data"
            assert a.strides == tuple(s * a.itemsize for s in t.strides), f"{what}: strides {a.strides}"
            # the physical order NumPy sees is the tag's
            assert sorted(range(4), key=lambda d: -a.strides[d]) == list(order), f"{what}: order"
            same_bits(a, pattern(dt, (2, 3, 5, 4), seed=1), what)


def test_strided_tensors_and_views():
    t = mf.Tensor.strided([3, 4, 5], "f32", [64, 1, 8])  # gaps between rows
    t.fill()
    a = np.from_dlpack(t)
    assert a.strides == (256, 4, 32)
    same_bits(a, pattern("f32", (3, 4, 5)), "strided f32")

    for dt in NUMPY_TYPE:
        parent = mf.Tensor([2, 6, 5, 4], dt, "nchw")
        parent.fill(seed=3)
        v = parent.view([1, 3, 2, 4], [1, 2, 3, 0])
        a = np.from_dlpack(v)
        itemsize = a.itemsize
        assert a.ctypes.data == parent.data_address + (1 * 120 + 2 * 20 + 3 * 4) * itemsize, f"{dt} view: first element"
        same_bits(a, pattern(dt, (2, 6, 5, 4), seed=3)[1:2, 2:5, 3:5, 0:4], f"{dt} view")
        # the view keeps its parent's buffer: both Python objects may go
        del parent, v
        gc.collect()
        same_bits(a, pattern(dt, (2, 6, 5, 4), seed=3)[1:2, 2:5, 3:5, 0:4], f"{dt} view, parent gone")


def unfolded_to_logical_nchw16c(u, logical):
    """(n, C/16, h, w, 16c) -> (n, c, h, w): NumPy's own reshaping, cut to the logical dims."""
    n, cb, h, w, b = u.shape
    return u.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)[:, :logical[1]]


def test_blocked_tensors_unfolded():
    for dt in NUMPY_TYPE:
        t = mf.Tensor([2, 17, 5, 4], dt, "nChw16c")
        t.fill(seed=5)
        u = np.from_dlpack(t)
        assert u.shape == (2, 2, 5, 4, 16), u.shape
        assert u.strides == tuple(s * u.itemsize for s in (640, 320, 64, 16, 1)), u.strides
        same_bits(unfolded_to_logical_nchw16c(u, (2, 17, 5, 4)), pattern(dt, (2, 17, 5, 4), seed=5), f"{dt} nChw16c")
        # the padding crosses too: the zeros memfmt wrote there
        padding = u.transpose(0, 1, 4, 2, 3).reshape(2, 32, 5, 4)[:, 17:]
        assert not bits(padding).any(), f"{dt} nChw16c: padding not zero"
        # element by element, through memfmt's own offsets
        for n, c, h, w in each_index((2, 17, 5, 4)):
            assert bits(u)[n, c // 16, h, w, c % 16] == t.bits([n, c, h, w]), (dt, n, c, h, w)

    # two blocks on one dim: OIhw4i16o4i, 20 x 9 x 3 x 2 (O pads to 32, I to 16)
    t = mf.Tensor([20, 9, 3, 2], "s8", "OIhw4i16o4i")
    t.fill()
    u = np.from_dlpack(t)
    assert u.shape == (2, 1, 3, 2, 4, 16, 4), u.shape
    o1, i1, h, w, i4a, o16, i4b = u.shape
    logical = u.transpose(0, 5, 1, 4, 6, 2, 3).reshape(o1 * o16, i1 * i4a * i4b, h, w)[:20, :9]
    same_bits(logical, pattern("s8", (20, 9, 3, 2)), "s8 OIhw4i16o4i")

    # a view of a blocked tensor: whole blocks at an offset
    parent = mf.Tensor([2, 48, 3, 3], "f32", "nChw16c")
    parent.fill()
    v = parent.view([2, 16, 3, 2], [0, 16, 0, 1])
    u = np.from_dlpack(v)
    assert u.shape == (2, 1, 3, 2, 16), u.shape
    same_bits(unfolded_to_logical_nchw16c(u, (2, 16, 3, 2)), pattern("f32", (2, 48, 3, 3))[:, 16:32, :, 1:3],
              "f32 nChw16c view")


def test_blocked_tensors_with_logical_dims():
    t = mf.Tensor([2, 16, 5, 4], "f32", "nChw16c")  # one block holds all channels: nhwc
    t.fill(seed=2)
    a = np.from_dlpack(Producer(t.dlpack(logical=True)))
    assert a.shape == (2, 16, 5, 4) and a.strides == (1280, 4, 256, 64), (a.shape, a.strides)
    same_bits(a, pattern("f32", (2, 16, 5, 4), seed=2), "f32 nChw16c, logical dims")

    t = mf.Tensor([2, 17, 5, 4], "f32", "nChw16c")
    live = mf.live_exports()
    raises(ValueError, ["to_dlpack: dim 1 of f32:p:blocked:aBcd16b", "blocked by 16", "17 indices"],
           lambda: t.dlpack(logical=True))
    assert mf.live_exports() == live


def test_bf16_refused_by_numpy():
    """NumPy 1.24 has no bfloat16: from_dlpack refuses kDLBfloat, and lets go of the capsule."""
    t = mf.Tensor([3, 4], "bf16", "ab")
    t.fill()
    live = mf.live_exports()
    raises(RuntimeError, ["Unsupported dtype in DLTensor"], lambda: np.from_dlpack(t))
    gc.collect()
    assert mf.live_exports() == live, "NumPy's refusal left the export alive"
    # the bits do cross, to a consumer that has the type: memfmt itself
    back = mf.import_capsule(t.dlpack())
    assert back.dtype == "bf16"
    want = pattern("bf16", (3, 4))
    for i, j in each_index((3, 4)):
        assert back.bits([i, j]) == want[i, j], (i, j)


def test_export_ownership():
    base = mf.live_exports()
    t = mf.Tensor([4, 5], "f32", "ba")
    t.fill(seed=9)
    a = np.from_dlpack(t)
    b = np.from_dlpack(t)
    assert mf.live_exports() == base + 2
    del t  # the arrays share the memory: it lives on
    gc.collect()
    same_bits(a, pattern("f32", (4, 5), seed=9), "after the tensor object went")
    del a
    gc.collect()
    assert mf.live_exports() == base + 1
    del b
    gc.collect()
    assert mf.live_exports() == base, "an export's deleter did not run"
    # a capsule nobody consumed: its destructor calls the deleter
    c = mf.Tensor([2], "u8", "a").dlpack()
    assert mf.live_exports() == base + 1
    del c
    gc.collect()
    assert mf.live_exports() == base


# ---- NumPy -> memfmt ---------------------------------------------------------------


def numpy_values(npt, shape, seed):
    """Values of every kind NumPy has for the type: NaN, infinities, -0, random numbers."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(npt, np.integer):
        info = np.iinfo(npt)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=npt)
    a = (rng.standard_normal(shape) * 100).astype(npt)
    flat = a.reshape(-1)
    flat[::5] = np.nan
    flat[1::7] = np.inf
    flat[2::11] = -np.inf
    flat[3::13] = -0.0
    return a


def check_import(arr, what):
    """Imports `arr` through its __dlpack__ and compares every element and field."""
    refs = sys.getrefcount(arr)
    imp = mf.from_dlpack(arr)
    assert sys.getrefcount(arr) == refs + 1, f"{what}: NumPy's capsule should hold the array"
    assert imp.dims == list(arr.shape), f"{what}: dims {imp.dims}"
    assert imp.data_address == arr.ctypes.data, f"{what}: the data moved"
    for d in range(arr.ndim):
        if arr.shape[d] > 1 and arr.size > 0:  # (strides that never take effect may differ)
            assert imp.strides[d] * arr.itemsize == arr.strides[d], f"{what}: strides {imp.strides}"
    want = bits(arr).copy()  # (a view would hold the array)
    for index in each_index(arr.shape):
        assert imp.bits(list(index)) == want[index], f"{what}: element {index}"
    del imp
    gc.collect()
    assert sys.getrefcount(arr) == refs, f"{what}: NumPy's deleter did not run"


def test_import_numpy_arrays():
    for n, npt in enumerate((np.float32, np.float16, np.int32, np.int8, np.uint8)):
        x = numpy_values(npt, (2, 6, 5, 4), seed=n)
        name = np.dtype(npt).name
        check_import(x, f"{name} C-contiguous")
        check_import(x.transpose(0, 2, 3, 1), f"{name} transposed")
        check_import(x[:, 1:5:2, ::2, 1:], f"{name} sliced with steps")
        check_import(x[1, 2:4], f"{name} a slice at an offset")
        check_import(np.asfortranarray(x), f"{name} Fortran order")
        check_import(x[:, :1, :, 2:3], f"{name} unit dims")
    check_import(np.zeros((3, 0, 2), np.float32), "no element")


def test_import_byte_offset():
    """A producer that points at its buffer and says where the tensor starts in byte_offset."""
    base = numpy_values(np.float32, (64,), seed=7)
    cap = mf.fake_capsule(shape=[3, 4], strides=[8, 2], byte_offset=5 * 4, base=base)
    imp = mf.import_capsule(cap)
    assert imp.offset0 == 5 and imp.byte_offset == 20
    assert imp.data_address == base.ctypes.data
    for i, j in each_index((3, 4)):
        assert imp.bits([i, j]) == bits(base)[5 + 8 * i + 2 * j], (i, j)


def test_numpy_memfmt_numpy():
    """An imported array exported again: the same bytes, kept alive through the chain."""
    x = numpy_values(np.float32, (3, 4, 5), seed=11)[:, ::2]
    want = bits(x).copy()
    refs = sys.getrefcount(x)
    imp = mf.from_dlpack(x)
    y = np.from_dlpack(imp)
    assert y.ctypes.data == x.ctypes.data and y.strides == x.strides
    del imp, x
    gc.collect()
    same_bits(y, want, "numpy -> memfmt -> numpy")


def test_import_refusals():
    x = numpy_values(np.float32, (2, 3, 4), seed=3)
    refs = sys.getrefcount(x)
    raises(ValueError, ["from_dlpack: dim 1 has a negative stride (-4, extent 3)"], lambda: mf.from_dlpack(x[:, ::-1]))
    raises(ValueError, ["int64", "has no memfmt counterpart"], lambda: mf.from_dlpack(x.astype(np.int64)))
    raises(ValueError, ["int16"], lambda: mf.from_dlpack(np.zeros(3, np.int16)))
    raises(ValueError, ["uint32"], lambda: mf.from_dlpack(np.zeros(3, np.uint32)))
    raises(ValueError, ["complex64"], lambda: mf.from_dlpack(x.astype(np.complex64)))
    raises(ValueError, ["the tensor has 0 dims"], lambda: mf.from_dlpack(np.array(2.5, np.float32)))
    raises(ValueError, ["the tensor has 13 dims"], lambda: mf.from_dlpack(np.zeros([1] * 13, np.float32)))
    overlapping = np.lib.stride_tricks.as_strided(x, shape=(3, 3), strides=(4, 4))
    raises(ValueError, ["strides overlap"], lambda: mf.from_dlpack(overlapping))
    del overlapping  # (a view of x)
    unaligned = np.frombuffer(bytearray(64), dtype=np.float32, count=8, offset=2)
    raises(ValueError, ["is not aligned to its 4-byte f32 type"], lambda: mf.from_dlpack(unaligned))
    gc.collect()
    assert sys.getrefcount(x) == refs, "a refused import kept NumPy's array"

    # what NumPy cannot produce, from the module's producer; the deleter runs once each time
    cases = [
        (dict(device_type=KDLCUDA, device_id=1), ["the tensor is on kDLCUDA (2), device 1", "copy it to the CPU"]),
        (dict(device_type=13), ["kDLCUDAManaged (13)"]),
        (dict(device_type=99), ["device type (99)"]),
        (dict(lanes=4), ["float32x4", "has 4 lanes"]),
        (dict(code=KDLBFLOAT, bits=32), ["bfloat32"]),
        (dict(byte_offset=6), ["byte_offset 6 is not a whole number of f32 elements (4 bytes)"]),
        (dict(shape=[2, -3]), ["dim 1 has a negative extent (-3)"]),
        (dict(shape=[2, 3], strides=[-3, 1]), ["dim 0 has a negative stride (-3, extent 2)"]),
    ]
    for kwargs, words in cases:
        deleted = mf.fake_deleted()
        cap = mf.fake_capsule(**kwargs)
        raises(ValueError, words, lambda: mf.import_capsule(cap))
        assert mf.fake_deleted() == deleted + 1, f"{kwargs}: the deleter did not run once"
        raises(ValueError, ["consumed already"], lambda: mf.import_capsule(cap))
        del cap
        gc.collect()
        assert mf.fake_deleted() == deleted + 1, f"{kwargs}: the deleter ran twice"
    # accepted: pinned host memory, a negative stride on a unit dim
    for kwargs in (dict(device_type=3), dict(shape=[2, 1], strides=[1, -1])):
        deleted = mf.fake_deleted()
        imp = mf.import_capsule(mf.fake_capsule(**kwargs))
        assert imp.dims == kwargs.get("shape", [2, 3])
        del imp
        assert mf.fake_deleted() == deleted + 1


def main():
    print(f"Python {sys.version.split()[0]} ({sys.executable}), NumPy {np.__version__}, module {mf.__file__}")
    tests = [(name, f) for name, f in globals().items() if name.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, f in tests:
        try:
            f()
        except Exception:  # noqa: BLE001 (every failure is reported, then the next test runs)
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"passed {name}")
    gc.collect()
    if mf.live_exports() != 0:
        failed += 1
        print(f"FAILED: {mf.live_exports()} memfmt exports still alive at the end")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
