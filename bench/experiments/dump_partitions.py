"""Runs one model of bench/models.py through backend="solder" once, with every partition's
Fusion text and first-call input shapes/strides written to $OUT/partitions.txt (for `solder
explain` on the CPU machine), and CUDA errors raised at the failing launch.
    CUDA_LAUNCH_BLOCKING=1 python3 bench/experiments/dump_partitions.py llama fp32"""
import os, sys, traceback
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import torch, solder, solder.dynamo.runtime as rt
import models

out = open(os.path.join(os.environ.get("OUT", "/tmp"), "partitions.txt"), "w")
orig = rt.SolderKernel.__call__
seen = set()
def call(self, *args):
    if self.name not in seen:
        seen.add(self.name)
        ins = [a for a in args if isinstance(a, torch.Tensor)]
        out.write(f"### {self.name}\n# shapes {[list(a.shape) for a in ins]}\n# strides {[list(a.stride()) for a in ins]}\n")
        out.write(f"# dtypes {[str(a.dtype) for a in ins]}\n{self.lowered.fusion}\n")
        out.flush()
    return orig(self, *args)
rt.SolderKernel.__call__ = call
name, dt = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = models.MODELS[name](False).to(device="cuda", dtype=models.DTYPES[dt]).eval()
batch, seq = models.FULL[name]
x = torch.randn(batch, seq, model.width, device="cuda", dtype=models.DTYPES[dt])
try:
    with torch.no_grad():
        want = model(x)
        got = torch.compile(model, backend="solder", fullgraph=False)(x)
        torch.cuda.synchronize()
        print("ok, max diff", (got.float() - want.float()).abs().max().item())
except Exception:
    traceback.print_exc(limit=3)
print(solder.compile_report())
