//! No kernel uses rayon's global pool: every parallel path runs on
//! `src/kernels/parallel.rs`'s per-process pool (rayon's global pool cannot be
//! rebuilt in a child of `fork()`; see that module's docs).
//!
//! This binary runs every parallel kernel once, above its parallel
//! threshold, from a thread that is not a rayon worker, and then checks that
//! rayon's global pool was never built: `build_global` fails once anything
//! has touched it (even `rayon::current_num_threads()` outside a pool). It
//! is its own test binary so that nothing else runs in this process.

use donate::kernels::GRAIN;
use donate::{BatchNorm, Tensor};

#[test]
fn no_kernel_touches_rayons_global_pool() {
    let n = 2 * GRAIN;
    let x = Tensor::<f32>::full(&[n], -1.5).unwrap();

    // Element-wise: into a new buffer, in place, and a cast and a copy.
    let y = x.relu_ref().unwrap();
    let mut z = x.deep_copy().unwrap();
    z.neg_inplace().unwrap();
    let _ = x.cast::<f64>().unwrap();

    // Binary: a new buffer, over the left operand, over the right operand,
    // and a broadcast.
    let _ = (&x + &y).unwrap();
    let lhs = (x.deep_copy().unwrap() * &y).unwrap();
    let _ = (&y - lhs).unwrap();
    let rows = z.reshape(&[1024, n / 1024]).unwrap();
    let row = Tensor::<f32>::ones(&[n / 1024]).unwrap();
    let _ = (&rows + &row).unwrap();

    // Reductions: the whole tensor, and along an axis.
    let _ = x.sum(None, false).unwrap();
    let _ = rows.sum(Some(1), false).unwrap();
    let _ = rows.max(Some(1), false).unwrap();

    // Row kernels.
    let _ = rows.deep_copy().unwrap().softmax(-1).unwrap();
    let _ = rows
        .deep_copy()
        .unwrap()
        .layer_norm(None, None, 1e-5)
        .unwrap();

    // Convolution (im2col and GEMM) and batch norm.
    let image = Tensor::<f32>::ones(&[1, 16, 128, 128]).unwrap();
    let weight = Tensor::<f32>::ones(&[8, 16, 3, 3]).unwrap();
    let _ = image.conv2d(&weight, None, 1, 1).unwrap();
    let mean = Tensor::<f32>::zeros(&[16]).unwrap();
    let var = Tensor::<f32>::ones(&[16]).unwrap();
    let bn = BatchNorm {
        mean: &mean,
        var: &var,
        gamma: None,
        beta: None,
        eps: 1e-5,
    };
    let _ = Tensor::<f32>::ones(&[1, 16, 256, 256])
        .unwrap()
        .batch_norm(&bn)
        .unwrap();

    // Matmul: one large f32 product (gemm's threads), one large integer
    // product, a batch of small products, a batch of large ones.
    let a = Tensor::<f32>::ones(&[512, 512]).unwrap();
    let _ = a.matmul(&a).unwrap();
    let ai = Tensor::<i32>::ones(&[256, 256]).unwrap();
    let _ = ai.matmul(&ai).unwrap();
    let small = Tensor::<f32>::ones(&[64, 16, 16]).unwrap();
    let _ = small.matmul(&small).unwrap();
    let large = Tensor::<f32>::ones(&[2, 256, 256]).unwrap();
    let _ = large.matmul(&large).unwrap();

    assert!(
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build_global()
            .is_ok(),
        "a kernel used rayon's global pool"
    );
}
