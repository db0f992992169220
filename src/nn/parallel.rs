//! DataParallel's module side, as `torch.nn.parallel.replicate` makes it:
//! one replica of the whole module tree per device, each module copied
//! shallowly (`_replicate_for_data_parallel`: its plain attributes, hooks
//! and mode shared or copied, its children the replica's), with the
//! parameters and buffers of that device put in place by name.
//!
//! A replica's parameters are not leaves (they come out of
//! `BroadcastBackward`), so a replica lists none (`replica.parameters()`
//! is empty, as PyTorch's since #33907); its forward finds them by name.

use std::any::Any;
use std::sync::Arc;

use super::module::{named_buffers, named_modules, named_parameters, Module};
use super::ModuleRef;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// A user class's instance copied for a replica (its plain attributes in a
/// new instance of the same class); the interpreter's to make.
pub type CopyObject<'a> = dyn Fn(&Arc<dyn Any + Send + Sync>) -> Arc<dyn Any + Send + Sync> + 'a;

/// One device's copies of the parameters and of the buffers, in
/// `parameters_and_buffers`'s order.
pub type DeviceCopies = (Vec<Arc<Tensor>>, Vec<Arc<Tensor>>);

/// The tensors `replicate` copies, each once, in the order it copies them
/// (PyTorch's `list(network.parameters())`, `list(network.buffers())`).
pub fn parameters_and_buffers(m: &ModuleRef) -> DeviceCopies {
    let params = named_parameters(m, true).into_iter().map(|(_, t)| t);
    let buffers = named_buffers(m, true).into_iter().map(|(_, t)| t);
    (params.collect(), buffers.collect())
}

/// One replica of `m` per entry of `params` and `buffers` (device j's
/// copies, in `parameters_and_buffers`'s order): the replica's modules are
/// new, its tensors device j's.
pub fn replicate(
    m: &ModuleRef,
    (params, buffers): (&[Arc<Tensor>], &[Arc<Tensor>]),
    copies: &[DeviceCopies],
    copy_object: &CopyObject,
) -> Vec<ModuleRef> {
    let modules: Vec<ModuleRef> = named_modules(m, "").into_iter().map(|(_, m)| m).collect();
    let position =
        |t: &Arc<Tensor>, list: &[Arc<Tensor>]| list.iter().position(|p| Arc::ptr_eq(p, t));
    copies
        .iter()
        .map(|(param_copies, buffer_copies)| {
            // Every module's copy first, so that children can be linked.
            let replicas: Vec<ModuleRef> = modules
                .iter()
                .map(|original| {
                    let original = lock(original);
                    let mut r = Module::new(&original.type_name, original.layer.clone());
                    r.training = original.training;
                    r.initialised = original.initialised;
                    r.replica = true;
                    r.object = original.object.as_ref().map(copy_object);
                    r.forward_pre_hooks = Arc::clone(&original.forward_pre_hooks);
                    r.forward_hooks = Arc::clone(&original.forward_hooks);
                    r.plain_tensors = original.plain_tensors.clone();
                    r.backward_hooks = Arc::clone(&original.backward_hooks);
                    r.backward_pre_hooks = Arc::clone(&original.backward_pre_hooks);
                    r.full_backward_hook = original.full_backward_hook;
                    r.parameters = original
                        .parameters
                        .iter()
                        .map(|(name, p)| {
                            // One `parameters()` does not list (a replica's
                            // own, replicated again) stays as it is, as the
                            // plain attribute PyTorch's shallow copy keeps.
                            let copy = p.as_ref().map(|p| match position(p, params) {
                                Some(i) => Arc::clone(&param_copies[i]),
                                None => Arc::clone(p),
                            });
                            (name.clone(), copy)
                        })
                        .collect();
                    r.buffers = original
                        .buffers
                        .iter()
                        .map(|b| {
                            let mut b = b.clone();
                            b.tensor = b.tensor.as_ref().map(|t| match position(t, buffers) {
                                Some(i) => Arc::clone(&buffer_copies[i]),
                                None => Arc::clone(t),
                            });
                            b
                        })
                        .collect();
                    r.into_ref()
                })
                .collect();
            for (original, replica) in modules.iter().zip(&replicas) {
                let children = lock(original).modules.clone();
                lock(replica).modules = children
                    .into_iter()
                    .map(|(name, child)| {
                        let copy = child.and_then(|c| {
                            let i = modules.iter().position(|m| Arc::ptr_eq(m, &c))?;
                            Some(Arc::clone(&replicas[i]))
                        });
                        (name, copy)
                    })
                    .collect();
            }
            Arc::clone(&replicas[0])
        })
        .collect()
}
