"""The cudash kernel checked by Jupyter's own conformance suite."""

import jupyter_kernel_test as jkt


class CudashKernelTests(jkt.KernelTests):
    kernel_name = "cudash"
    language_name = "cudash"
    file_extension = ".cudash"

    code_hello_world = 'print("hello, world")'

    # A non-blocking copy from pageable memory warns (warnings go to stderr).
    code_stderr = "h = ones(3)\nd = h.to(cuda, non_blocking=true)"

    completion_samples = [
        {"text": "zeros_l", "matches": {"zeros_like"}},
        {"text": "x = ones(2, dev", "matches": {"device=", "device", "device_count", "devices"}},
        {"text": "sync", "matches": {"sync", "synchronize"}},
    ]

    complete_code_samples = ["1 + 1", "x = ones(3)", "for i in 0..3 { print(i) }", "stream s { y = 1 }"]
    incomplete_code_samples = ["for i in 0..3 {", "x = ones(3,", "stream s {\n  y = 1", "(1 +"]
    invalid_code_samples = ["1 +* 2", "x = )", "for in"]

    code_generate_error = "y = undefined_name"

    code_execute_result = [
        {"code": "1 + 1", "result": "2"},
        {"code": "ones(2, dtype=i32)", "result": "[1, 1]  i32[2] @cpu"},
        {"code": "ones(2, device=cuda:1)", "mime": "text/html"},
    ]

    code_display_data = [
        {"code": "mem", "mime": "text/html"},
        {"code": "mem", "mime": "text/plain"},
        {"code": "mem cpu", "mime": "text/html"},
    ]

    code_history_pattern = "1 +*"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "zeros"

    # `NAME?` opens the help in the pager, as in IPython.
    code_page_something = "zeros?"

    code_clear_output = "print(1)\nclear_output()"


class CudashIopubWelcomeTests(jkt.IopubWelcomeTests):
    kernel_name = "cudash"
    support_iopub_welcome = True
