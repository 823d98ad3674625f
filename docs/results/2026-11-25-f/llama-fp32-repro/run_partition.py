import ast, sys, torch, solder
text = open("docs/results/2026-11-25-f/llama-fp32-repro/g0_fused_0_fp32.fusion").read()
shapes, strides = ast.literal_eval(open("docs/results/2026-11-25-f/llama-fp32-repro/g0_fused_0_fp32.shapes").read())
f = solder.Fusion.parse(text)
dts = [l.split(":")[1].split("[")[0].strip() for l in text.splitlines() if l.strip().startswith("input ")]
ins = []
for sh, st, dt in zip(shapes, strides, dts):
    n = max(sum((s - 1) * t for s, t in zip(sh, st)) + 1, 1)
    if dt == "i64":
        base = torch.randint(0, 1024, (n,), device="cuda", dtype=torch.int64)
    else:
        base = torch.randn(n, device="cuda", dtype=torch.float32)
    ins.append(torch.as_strided(base, sh, st))
ex = solder.Executor(f, plan="")
outs = ex.run(list(ins), torch.cuda.current_stream().cuda_stream) if "run" in sys.argv else ex(*ins)
torch.cuda.synchronize()
print("ran", [tuple(o.shape) for o in outs])
