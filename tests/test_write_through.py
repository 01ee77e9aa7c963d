"""Writes through views reach their base, as NumPy's and PyTorch's do.

A view (basic index, reshape of contiguous data, transpose) shares its
base's buffer; assignment and in-place operators on either write that
buffer, so every view of it sees the change. Donation rules are unchanged:
a buffer with a live view is not exclusive, so donating it copies and warns.
"""

import threading
import warnings

import numpy as np
import pytest

import donate as dn


def test_setitem_through_a_view_reaches_its_base():
    c = dn.zeros((2, 3, 3))
    v = c[0]
    v[1, 1] = 5.0
    assert np.asarray(c)[0, 1, 1] == 5.0
    assert np.asarray(c).sum() == 5.0
    # and a write into the base shows in the view
    c[0, 2, 2] = 7.0
    assert np.asarray(v)[2, 2] == 7.0


def test_inplace_operators_through_views_reach_their_base():
    a = dn.ones((3, 4))
    col = a[:, 1]  # strided view
    col *= 3
    t = a.T  # transposed view
    t += 1
    expected = np.ones((3, 4), dtype=np.float32)
    expected[:, 1] *= 3
    expected += 1
    np.testing.assert_array_equal(np.asarray(a), expected)
    np.testing.assert_array_equal(np.asarray(col), expected[:, 1])
    np.testing.assert_array_equal(np.asarray(t), expected.T)


def test_a_write_keeps_every_tensor_on_its_buffer():
    # Pointer identity: neither the base nor its view moves to a new buffer.
    a = dn.arange(12, dtype=dn.float32).reshape((3, 4))
    v = a[1]
    pa, pv = a.data_ptr(), v.data_ptr()
    v += 1
    v[0] = -1.0
    a[2] = 9.0
    assert (a.data_ptr(), v.data_ptr()) == (pa, pv)
    np.testing.assert_array_equal(
        np.asarray(a),
        [[0, 1, 2, 3], [-1, 6, 7, 8], [9, 9, 9, 9]],
    )


def test_diagonal_regulariser_through_a_strided_view():
    # scikit-learn's GaussianMixture adds its covariance regulariser
    # through a view of the diagonal; under copy-on-write the term was
    # silently lost.
    n = 4
    cov = dn.zeros((n, n))
    diag = cov.reshape((n * n,))[:: n + 1]
    diag += 1e-3
    np.testing.assert_allclose(np.asarray(cov), np.eye(n) * 1e-3, rtol=1e-6)


def test_augmented_assignment_to_a_subscript():
    a = dn.zeros((2, 3))
    a[0] += 1.0
    a[1, 1:] -= 2.0
    np.testing.assert_array_equal(np.asarray(a), [[1, 1, 1], [0, -2, -2]])


def test_value_that_is_a_view_of_the_target():
    a = dn.arange(6, dtype=dn.float32)
    a[1:] = a[:-1]  # overlapping source and target, as NumPy
    np.testing.assert_array_equal(np.asarray(a), [0, 0, 1, 2, 3, 4])


def test_exported_arrays_see_later_writes_and_stay_read_only():
    a = dn.ones(4)
    n = np.asarray(a)
    a += 1
    a[0] = 9.0
    np.testing.assert_array_equal(n, [9, 2, 2, 2])
    assert not n.flags.writeable


def test_donating_a_buffer_with_a_live_view_copies_and_warns():
    a = dn.ones(1000)
    v = a[:10]
    with pytest.warns(dn.DonationWarning):
        b = dn.relu(a.donate())
    assert b.data_ptr() != v.data_ptr()
    v[0] = 3.0
    assert float(a[0]) == 3.0
    assert float(b[0]) == 1.0


def test_readers_in_other_threads_see_whole_writes():
    # Large enough that reductions run without the interpreter: each sum
    # reads every element either before or after a write, never half.
    n = 1 << 20
    a = dn.zeros(n)
    v = a[:]
    sums = []
    stop = threading.Event()

    def read():
        while not stop.is_set():
            sums.append(float(a.sum()))

    readers = [threading.Thread(target=read) for _ in range(2)]
    for r in readers:
        r.start()
    try:
        for _ in range(30):
            v += 1.0
    finally:
        stop.set()
        for r in readers:
            r.join()
    assert float(a.sum()) == 30.0 * n
    assert all(s % n == 0 for s in sums), sorted({s / n for s in sums})


def test_updates_of_one_tensor_from_threads_are_never_lost():
    """In-place updates of one tensor run one at a time, also when its
    buffer is shared. A write through lets go of the tensor's lock and
    waits for the buffer's readers (here: threads summing the view) to
    leave before it writes; the next update must still read what it
    wrote."""
    n = 1 << 16
    t = dn.zeros((n,))
    view = t[::2]  # shared: every update writes through
    writers, rounds = 3, 100
    done = threading.Event()
    barrier = threading.Barrier(writers + 2)

    def write():
        barrier.wait()
        for _ in range(rounds):
            t.add_(1.0)

    def read():
        barrier.wait()
        while not done.is_set():
            view.sum()

    ws = [threading.Thread(target=write) for _ in range(writers)]
    rs = [threading.Thread(target=read) for _ in range(2)]
    for th in ws + rs:
        th.start()
    for th in ws:
        th.join()
    done.set()
    for th in rs:
        th.join()
    np.testing.assert_array_equal(np.asarray(t), np.full(n, writers * rounds, np.float32))
    np.testing.assert_array_equal(np.asarray(view), np.full(n // 2, writers * rounds, np.float32))


def test_jit_refuses_a_base_read_after_a_write_through_its_view():
    @dn.jit
    def f(x):
        v = x[0]
        v[1] = 5.0
        return x * 1

    with pytest.raises(dn.TracerError, match="written in place since"):
        f(dn.zeros((2, 3)))


def test_jit_refuses_a_view_read_after_a_write_into_its_base():
    @dn.jit
    def f(x):
        x = x * 1
        v = x[0]
        x[0, 0] = 7.0
        return v + 1

    with pytest.raises(dn.TracerError, match="written in place since"):
        f(dn.zeros((2, 3)))


def test_jit_traces_augmented_assignment_to_a_subscript():
    def f(x):
        y = x * 1
        y[0] += 1.0
        y[1, 1:] *= 3.0
        return y

    x = dn.arange(6, dtype=dn.float32).reshape((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dn.jit(f)(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(f(x)))
