# torch.autograd.anomaly_mode: anomaly detection's context managers over
# cudash's natives (src/autograd/anomaly.rs keeps the mode, the nodes'
# tracebacks and the NaN check).
import warnings

import torch


class detect_anomaly:
    """Context manager: nodes made inside keep the traceback of the code
    that made them (shown when their backward fails), and with `check_nan`
    a backward that gives NaN raises."""

    def __init__(self, check_nan=True):
        self.prev = torch.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. "
            "This mode will increase the runtime "
            "and should only be enabled for debugging."
        )

    def __enter__(self):
        torch.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turns anomaly detection on or off, at once (a call) or for a block
    (a context manager: the old setting comes back after it)."""

    def __init__(self, mode, check_nan=True):
        self.prev = torch.is_anomaly_enabled()
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        torch.set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)
