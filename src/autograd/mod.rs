//! Autograd, above the op layer (as PyTorch's autograd sits above its
//! kernels): the ops in `record.rs` call the op layer and record a graph of
//! nodes (`node.rs`, named as PyTorch names them: `MulBackward0`) when an
//! input requires grad; `engine.rs` runs it backward with the formulas of
//! `formulas.rs` and `reductions.rs`, built from the same op layer, so gradients are computed
//! on sim, emu and cuda alike; `meta.rs` is what a tensor keeps
//! (`requires_grad`, `.grad`, `grad_fn`); `optim.rs` has the optimizers, `functional.rs` `linear` and `dropout`;
//! `hooks.rs` and `callbacks.rs` what backward calls back (hooks, final callbacks).

pub mod activation;
pub mod activation_ops;
mod adam_capturable;
mod adam_foreach;
pub mod adaptive;
pub mod add_products;
pub mod anomaly;
pub mod attention;
pub mod autocast;
pub mod bilinear;
pub mod blends;
pub mod callbacks;
pub mod coalesced;
pub mod conv;
pub mod create_graph;
pub mod diagonals;
pub mod distances;
pub mod dual;
pub mod einsum;
pub mod embedding_bag;
pub mod engine;
pub mod fold;
pub mod formulas;
pub mod forward_ad;
pub mod functional;
pub mod grad_scaler;
pub mod group_norm;
pub mod hook_list;
pub mod hooks;
pub mod inplace;
pub mod jvp;
pub mod losses;
pub mod median;
pub mod meta;
pub mod node;
pub mod ops;
pub mod optim;
pub mod packed;
pub mod pad;
pub mod parts;
pub mod pixel_shuffle;
pub mod pointwise_grad;
pub mod pointwise_losses;
pub mod record;
pub mod reductions;
pub mod rms_norm;
pub mod saved_hooks;
pub mod saved_names;
pub mod scatter;
pub mod schedule;
pub mod sdp;
pub mod slices;
pub mod sparse;
pub mod step_ops;
pub mod unpool;
pub mod upsample;
pub mod variable;
pub mod views;
pub mod window;

/// Whether ops are recorded (PyTorch's grad mode): off inside `no_grad { }`;
/// and the autocast regions in force (`autocast.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    pub enabled: bool,
    pub autocast: autocast::Autocast,
}

impl Mode {
    /// Nothing recorded (a backward that creates no graph).
    pub fn off() -> Mode {
        Mode {
            enabled: false,
            autocast: autocast::Autocast::default(),
        }
    }
}

impl Default for Mode {
    fn default() -> Mode {
        Mode {
            enabled: true,
            autocast: autocast::Autocast::default(),
        }
    }
}
