"""Where implicit donation starts to pay for its temporary check.

Times ``(a + b).relu()`` (one temporary, reused when implicit donation is
on) with the check forced on for every size (``min_bytes=0``) and with
implicit donation off, side by side, and prints the medians. Run:

    python benches/implicit_threshold.py
"""

from __future__ import annotations

import statistics
import timeit

import donate


def main() -> None:
    print(f"temporary check: {donate.temporary_check()[1]}")
    print(f"{'elements':>10} {'bytes':>10} {'on (us)':>9} {'off (us)':>9} {'on/off':>7}")
    for n in [16, 1024, 4096, 16384, 24576, 32768, 65536, 262144]:
        a = donate.ones((n,))
        b = donate.ones((n,))
        number = max(200, 2_000_000 // max(n, 1))

        def op() -> None:
            (a + b).relu()

        on, off = [], []
        for _ in range(7):
            with donate.implicit_donation(True, min_bytes=0):
                on.append(timeit.timeit(op, number=number) / number * 1e6)
            with donate.implicit_donation(False):
                off.append(timeit.timeit(op, number=number) / number * 1e6)
        m_on, m_off = statistics.median(on), statistics.median(off)
        print(f"{n:>10} {4 * n:>10} {m_on:>9.2f} {m_off:>9.2f} {m_on / m_off:>7.2f}")


if __name__ == "__main__":
    main()
