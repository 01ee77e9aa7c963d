//! Arena reuse and budget; global allocation statistics. The statistics are
//! process-wide, so these tests run one at a time under a lock.
// Tensors filled with small integers compare exactly.
#![allow(clippy::float_cmp)]

use std::sync::Mutex;

use donate::{memory_stats, reset_peak, DonateExt, Error, Tensor, TensorArena};

static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn arena_reuses_blocks_of_a_size_class() {
    let _g = lock();
    let arena = TensorArena::new(1 << 20);
    let a = arena.zeros::<f32>(&[1000]).unwrap(); // 4000 B -> 4096 class
    let pa = a.buffer_ptr();
    drop(a);
    let st = arena.stats();
    assert_eq!(
        (st.hits, st.misses, st.live_bytes, st.free_bytes),
        (0, 1, 0, 4096)
    );
    let b = arena.full::<f32>(&[900], 1.0).unwrap(); // same class
    assert_eq!(b.buffer_ptr(), pa);
    assert!(b.as_slice().unwrap().iter().all(|x| *x == 1.0));
    let st = arena.stats();
    assert_eq!(
        (
            st.hits,
            st.misses,
            st.live_bytes,
            st.free_bytes,
            st.peak_bytes
        ),
        (1, 1, 4096, 0, 4096)
    );
}

#[test]
fn arena_zeroes_reused_blocks() {
    let _g = lock();
    let arena = TensorArena::new(1 << 20);
    drop(arena.full::<f32>(&[64], 7.0).unwrap());
    let z = arena.zeros::<f32>(&[64]).unwrap();
    assert!(z.as_slice().unwrap().iter().all(|x| *x == 0.0));
}

#[test]
fn arena_budget_is_an_error_not_an_abort() {
    let _g = lock();
    let arena = TensorArena::new(8192);
    let a = arena.zeros::<f32>(&[1024]).unwrap(); // 4096
    let b = arena.zeros::<f32>(&[1024]).unwrap(); // 4096: full
    let err = arena.zeros::<f32>(&[1]).unwrap_err();
    assert_eq!(
        err,
        Error::ArenaExhausted {
            requested: 4,
            in_use: 8192,
            max_bytes: 8192
        }
    );
    assert!(err.to_string().contains("max_bytes=8192"));
    drop(a);
    drop(b);
    // idle blocks of another class are freed to make room
    let c = arena.zeros::<f32>(&[2048]).unwrap(); // 8192 class
    assert_eq!(arena.held_bytes(), 8192);
    drop(c);
    arena.clear();
    assert_eq!(arena.held_bytes(), 0);
    assert_eq!(arena.stats().free_bytes, 0);
}

#[test]
fn ops_inside_scope_allocate_from_arena() {
    let _g = lock();
    let arena = TensorArena::new(1 << 24);
    let x =
        Tensor::<f32>::from_vec((0..4096).map(|i| i as f32 - 2048.0).collect(), &[4096]).unwrap();
    arena.scope(|| {
        for _ in 0..10 {
            let y = x.relu_ref().unwrap(); // always a new buffer
            drop(y); // back to the free list
        }
    });
    let st = arena.stats();
    assert_eq!(st.misses, 1);
    assert_eq!(st.hits, 9);
}

#[test]
fn buffer_outliving_its_arena_is_freed_to_the_system() {
    let _g = lock();
    let before = memory_stats().live_bytes;
    let t = {
        let arena = TensorArena::new(1 << 20);
        let t = arena.full::<f64>(&[100], 3.0).unwrap();
        drop(arena);
        t
    };
    assert_eq!(t.as_slice().unwrap()[99], 3.0);
    drop(t);
    assert_eq!(memory_stats().live_bytes, before);
}

#[test]
fn arena_is_sync_and_consistent_under_threads() {
    let _g = lock();
    let arena = TensorArena::new(64 << 20);
    std::thread::scope(|s| {
        for _ in 0..4 {
            let arena = arena.clone();
            s.spawn(move || {
                arena.scope(|| {
                    for i in 0..500 {
                        let t = Tensor::<f32>::full(&[64 + (i % 7) * 100], 1.0).unwrap();
                        assert!(t.as_slice().unwrap().iter().all(|x| *x == 1.0));
                    }
                });
            });
        }
    });
    let st = arena.stats();
    assert_eq!(st.live_bytes, 0);
    assert_eq!(st.hits + st.misses, 2000);
    assert_eq!(arena.held_bytes(), st.free_bytes);
}

#[test]
fn relu_chain_allocation_counts() {
    let _g = lock();
    let x = Tensor::<f32>::zeros(&[1000, 1000]).unwrap();
    let s0 = memory_stats();
    reset_peak();
    // donation: no new buffer at all
    let mut y = x;
    for _ in 0..10 {
        y = y.relu().unwrap();
    }
    let s1 = memory_stats();
    assert_eq!(s1.allocations - s0.allocations, 0);
    assert_eq!(s1.implicit_donations - s0.implicit_donations, 10);
    assert_eq!(s1.reused_bytes - s0.reused_bytes, 10 * 4_000_000);
    // always-copy: ten fresh buffers, all alive at once
    reset_peak();
    let base = memory_stats().live_bytes;
    let mut keep = vec![y];
    for _ in 0..10 {
        let next = keep.last().unwrap().relu_ref().unwrap();
        keep.push(next);
    }
    let s2 = memory_stats();
    assert_eq!(s2.allocations - s1.allocations, 10);
    assert_eq!(s2.peak_bytes - base, 10 * 4_000_000);
}

#[test]
fn explicit_fallback_is_counted() {
    let _g = lock();
    let a = Tensor::<f32>::zeros(&[4]).unwrap();
    let keep = a.clone();
    let s0 = memory_stats();
    let r = a.donate().relu().unwrap();
    let s1 = memory_stats();
    assert_eq!(s1.donation_fallbacks - s0.donation_fallbacks, 1);
    assert_eq!(s1.allocations - s0.allocations, 1);
    assert_ne!(r.buffer_ptr(), keep.buffer_ptr());
}

#[test]
fn arena_guards_dropped_out_of_order_leave_the_right_arena_current() {
    let _g = lock();
    let a = TensorArena::new(1 << 20);
    let b = TensorArena::new(1 << 20);
    let ga = a.enter();
    let gb = b.enter();
    drop(ga); // out of order: b must stay current
    let t = Tensor::<f32>::zeros(&[16]).unwrap();
    assert_eq!(b.stats().live_bytes, 64, "b is still current");
    assert_eq!(a.stats().live_bytes, 0);
    drop(gb);
    drop(t);
    let u = Tensor::<f32>::zeros(&[16]).unwrap();
    assert_eq!(b.stats().live_bytes, 0, "no arena is current any more");
    drop(u);
}
