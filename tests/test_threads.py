"""What fit(threads=k) changes in the process, and that it puts it back."""
from jitad import threads as th


def test_one_pool_per_thread_count():
    assert th.pool(2) is th.pool(2)
    assert th.pool(3) is not th.pool(2)


def test_blas_is_single_threaded_inside_and_restored_after():
    handles = th._openblas_handles()
    assert handles, "scipy's OpenBLAS (what Numba's @ calls) was not found"
    get, put = handles[0]
    before = get()
    put(2)
    try:
        with th.single_threaded_blas():
            assert get() == 1
        assert get() == 2
    finally:
        put(before)
