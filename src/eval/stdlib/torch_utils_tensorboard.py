"""torch.utils.tensorboard's SummaryWriter for the scalars training loops
log (makemore's `writer.add_scalar("Loss/train", loss, step)`): TensorBoard's
own event files under `log_dir`, which `tensorboard --logdir` reads.
Written for cudash on `_cudash.tb_open` and `_cudash.tb_scalar`; images,
histograms, graphs and text are not there."""

import os
import time

import _cudash


def _default_dir(comment):
    stamp = time.strftime("%b%d_%H-%M-%S", time.localtime())
    return os.path.join("runs", stamp + "_" + _cudash.hostname() + comment)


class SummaryWriter:
    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            log_dir = _default_dir(comment)
        self.log_dir = log_dir
        os.makedirs(log_dir, exist_ok=True)
        self._suffix = filename_suffix
        self._file = _cudash.tb_open(log_dir, filename_suffix)
        self._writers = {}

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None,
                   new_style=False, double_precision=False):
        if new_style or double_precision:
            raise NotImplementedError("cudash's SummaryWriter writes simple values: leave new_style and double_precision False")
        step = 0 if global_step is None else int(global_step)
        when = time.time() if walltime is None else walltime
        _cudash.tb_scalar(self._file, tag, float(scalar_value), step, when)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        # As PyTorch's: each tag in a run of its own beside the log_dir's.
        when = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, main_tag.replace("/", "_") + "_" + tag)
            if run not in self._writers:
                os.makedirs(run, exist_ok=True)
                self._writers[run] = _cudash.tb_open(run, self._suffix)
            step = 0 if global_step is None else int(global_step)
            _cudash.tb_scalar(self._writers[run], main_tag, float(value), step, when)

    def flush(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *excinfo):
        self.close()
        return False
