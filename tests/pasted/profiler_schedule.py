# torch.profiler's schedule: skip_first, wait, warmup and active steps in
# cycles, on_trace_ready at the end of each, the table of what the active
# steps ran.
import torch
from torch.profiler import profile, schedule, ProfilerActivity, ProfilerAction

x = torch.ones(100)
ready = []


def handler(p):
    table = p.key_averages().table(row_limit=-1)
    calls = [line.split()[-1] for line in table.splitlines() if "aten::mul " in line]
    ready.append((p.step_num, calls))


sched = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
print([sched(i) for i in range(10)])
print(ProfilerActivity.CPU, [ProfilerActivity.CUDA], ProfilerAction.RECORD.name)
with profile(activities=[ProfilerActivity.CPU], schedule=sched, on_trace_ready=handler) as p:
    for step in range(10):
        for _ in range(step + 1):
            y = x * 2
        p.step()
print(ready)

# Without a schedule every step is recorded, and the handler runs at the end.
with profile(activities=[ProfilerActivity.CPU], on_trace_ready=handler) as p:
    for step in range(3):
        y = x * 3
        p.step()
print(ready[-1])
table = p.key_averages().table(sort_by="count", row_limit=1)
print(table.splitlines()[1].split()[0], table.splitlines()[3].split()[0])
print(table.splitlines()[-1].startswith("Self CPU time total: "))
