#!/usr/bin/env bash
# On the GPU machine, with gpu-bin/ carried (session 77): the saved-tensor
# hooks tutorial, the tutorials' basics and save_on_cpu on `--backend cuda`,
# each beside PyTorch's run of the same file on the same GPU. Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export CUDASH_KERNEL_CACHE="${CUDASH_KERNEL_CACHE:-$PWD/gpu-bin/kernel-cache}"
for lib in libnvrtc.so.13 libcublas.so.13 libnccl.so.2; do
  dir=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /opt /usr/lib /usr/local/lib \
          -name "$lib" -print -quit 2>/dev/null | xargs -r dirname)
  [ -n "$dir" ] && export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
fail=0
for p in tests/pasted/saved_tensor_hooks.py tests/pasted/tutorial_basics.py benches/gpu/save_on_cpu.py; do
  name=$(basename "$p" .py)
  (cd "$(dirname "$p")" && timeout 120 python3 "$(basename "$p")") >"$out/$name.torch" 2>"$out/$name.torch.err"
  (cd "$(dirname "$p")" && timeout 120 "$OLDPWD/gpu-bin/cudash" --backend cuda script "$(basename "$p")") \
    >"$out/$name.cudash" 2>"$out/$name.cudash.err"
  echo "== $name: PyTorch $(wc -l <"$out/$name.torch") lines, cudash $(wc -l <"$out/$name.cudash") lines"
  if diff "$out/$name.torch" "$out/$name.cudash"; then echo "-- $name: the same"; else fail=1; fi
  tail -n 5 "$out/$name.cudash.err"
done
exit $fail
