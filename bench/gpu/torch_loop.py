"""torch_loop.py: the torch workload of bench/gpu/check: a small MLP trained for 20 warm-up
steps, then STEPS measured ones (launch-bound: many small kernels a step), inside an NVTX
range "tt_measured". Prints the median measured step time in microseconds.
  python3 torch_loop.py bare|torch [STEPS] [TRACE.json]
"torch" wraps the measured steps in torch.profiler (CPU and CUDA activities) and exports
its Chrome trace to TRACE.json: the reference for the kernel counts of the same steps."""
import statistics
import sys
import time

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "bare"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
out = sys.argv[3] if len(sys.argv) > 3 else "torch_loop.pt.trace.json"

torch.manual_seed(0)
dev = torch.device("cuda")
layers = []
for _ in range(12):
    layers += [torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.LayerNorm(256)]
model = torch.nn.Sequential(*layers).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(64, 256, device=dev)
y = torch.randn(64, 256, device=dev)


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


for _ in range(20):
    step()
torch.cuda.synchronize()

times = []
prof = None
if mode == "torch":
    prof = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA])
    prof.__enter__()
torch.cuda.nvtx.range_push("tt_measured")
for _ in range(steps):
    a = time.perf_counter()
    step()
    torch.cuda.synchronize()
    times.append((time.perf_counter() - a) * 1e6)
torch.cuda.nvtx.range_pop()
if prof is not None:
    prof.__exit__(None, None, None)
    prof.export_chrome_trace(out)
print("%.1f" % statistics.median(times))
