"""torch.compile(backend="solder") on real model blocks, beside eager and Inductor (GPU machine).

    python3 bench/models.py                      # GPT-2 block, Llama layer, ViT block; fp32, bf16
    python3 bench/models.py --models gpt2 --dtypes bf16 --iters 50
    python3 bench/models.py --device cpu --small # a smoke run on the CPU reference executor

Random weights, configs built in code (no downloads). Per model and dtype, µs per forward
(median of --repeats timings of --iters forwards, CUDA events) for: eager; torch.compile
(Inductor, default mode); backend="solder"; backend="solder" with CUDA-graph replay
(mode="reduce-overhead"); backend="solder" with matmuls left to torch (options={"matmul": "eager"}). Each compiled output is compared with eager's (allclose within the
dtype's tolerance) and Solder's partition report is printed after the table.
"""
import argparse
import json
import statistics
import sys
import time

import torch

import solder
import solder.dynamo  # registers backend="solder" when solder is not pip-installed

# Sizes of the anchors: (batch, sequence).
FULL = {"gpt2": (8, 1024), "llama": (8, 1024), "vit": (64, 197)}
SMALL = {"gpt2": (2, 16), "llama": (2, 16), "vit": (2, 17)}
# allclose tolerances against eager, per dtype (Inductor and Solder both reorder reductions).
TOL = {torch.float32: dict(atol=2e-3, rtol=2e-3), torch.bfloat16: dict(atol=6e-2, rtol=6e-2)}


def first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


class Gpt2Block(torch.nn.Module):
    def __init__(self, small):
        super().__init__()
        from transformers import GPT2Config
        from transformers.models.gpt2.modeling_gpt2 import GPT2Block

        cfg = GPT2Config(n_embd=64 if small else 768, n_head=4 if small else 12, n_layer=1, n_positions=1024,
                         resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        cfg._attn_implementation = "sdpa"
        self.block = GPT2Block(cfg, layer_idx=0)
        self.width = cfg.n_embd

    def forward(self, x):
        return first(self.block(x))


class LlamaLayer(torch.nn.Module):
    """A Llama decoder layer (RMSNorm, RoPE, SwiGLU; causal SDPA attention), TinyLlama's shape."""

    def __init__(self, small):
        super().__init__()
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

        cfg = LlamaConfig(hidden_size=64 if small else 2048, intermediate_size=160 if small else 5632,
                          num_attention_heads=4 if small else 32, num_key_value_heads=2 if small else 4,
                          max_position_embeddings=2048, rms_norm_eps=1e-5)
        cfg._attn_implementation = "sdpa"
        self.layer = LlamaDecoderLayer(cfg, layer_idx=0)
        self.rotary = LlamaRotaryEmbedding(config=cfg)
        self.width = cfg.hidden_size

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device).unsqueeze(0)
        cos_sin = self.rotary(x, pos)
        return first(self.layer(x, attention_mask=None, position_ids=pos, position_embeddings=cos_sin))


class VitBlock(torch.nn.Module):
    def __init__(self, small):
        super().__init__()
        from timm.models.vision_transformer import Block

        self.width = 64 if small else 768
        self.block = Block(dim=self.width, num_heads=4 if small else 12, mlp_ratio=4.0, qkv_bias=True)

    def forward(self, x):
        return self.block(x)


MODELS = {"gpt2": Gpt2Block, "llama": LlamaLayer, "vit": VitBlock}
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def time_us(fn, x, iters, repeats):
    """Median µs per forward (CUDA events on the GPU, wall time on the CPU)."""
    for _ in range(3):
        fn(x)
    samples = []
    cuda = x.is_cuda
    for _ in range(repeats):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            for _ in range(iters):
                fn(x)
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e3 / iters)
        else:
            t = time.perf_counter()
            for _ in range(iters):
                fn(x)
            samples.append((time.perf_counter() - t) * 1e6 / iters)
    return statistics.median(samples)


def compare(got, want, dtype):
    diff = (got.float() - want.float()).abs().max().item()
    ok = torch.allclose(got.float(), want.float(), **TOL[dtype])
    return ok, diff


def run_case(name, dtype_name, args):
    dtype, device = DTYPES[dtype_name], torch.device(args.device)
    torch.manual_seed(0)
    model = MODELS[name](args.small).to(device=device, dtype=dtype).eval()
    batch, seq = (SMALL if args.small else FULL)[name]
    x = torch.randn(batch, seq, model.width, device=device, dtype=dtype)
    row = {"model": name, "dtype": dtype_name, "shape": f"{batch}x{seq}x{model.width}"}
    with torch.no_grad():
        want = model(x).clone()
        row["eager"] = time_us(model, x, args.iters, args.repeats)
        variants = [("inductor", dict()), ("solder", dict(backend="solder")),
                    ("solder+graphs", dict(backend="solder", mode="reduce-overhead")),
                    ("solder-mm-eager", dict(backend="solder", options={"matmul": "eager"}))]
        if args.device == "cpu":
            variants = [v for v in variants if v[0] in ("solder", "solder-mm-eager")]
        for label, kw in variants:
            if label not in args.variants:
                continue
            torch._dynamo.reset()
            if label.startswith("solder"):
                solder.dynamo.report.clear()
            try:
                c = torch.compile(model, **kw)
                t0 = time.perf_counter()
                got = c(x).clone()
                row[label + "_compile_s"] = time.perf_counter() - t0
                ok, diff = compare(got, want, dtype)
                row[label + "_ok"], row[label + "_maxdiff"] = ok, diff
                row[label] = time_us(c, x, args.iters, args.repeats)
                if label.startswith("solder"):
                    row[label + "_report"] = solder.compile_report()
            except Exception as e:  # one failing variant should not hide the others
                row[label + "_error"] = f"{type(e).__name__}: {e}"[:500]
            print(f"  {name} {dtype_name} {label}: "
                  + (row.get(label + "_error") or f"{row.get(label, float('nan')):.1f} µs, "
                     f"allclose {row.get(label + '_ok')} (max |diff| {row.get(label + '_maxdiff', float('nan')):.2e})"),
                  file=sys.stderr, flush=True)
    return row


def table(rows, variants):
    head = ["model", "dtype", "shape", "eager µs"] + [f"{v} µs" for v in variants] + ["best solder vs eager", "best solder vs inductor", "allclose"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["model"], r["dtype"], r["shape"], f"{r['eager']:.1f}"]
        for v in variants:
            cells.append(f"{r[v]:.1f}" if v in r else ("error" if v + "_error" in r else "-"))
        best = min((r[v] for v in ("solder", "solder+graphs", "solder-mm-eager") if v in r), default=None)
        cells.append(f"{r['eager'] / best:.2f}x" if best else "-")
        cells.append(f"{r['inductor'] / best:.2f}x" if best and "inductor" in r else "-")
        oks = [f"{v}:{'yes' if r[v + '_ok'] else 'NO'}" for v in variants if v + "_ok" in r]
        cells.append(" ".join(oks))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="gpt2,llama,vit")
    ap.add_argument("--dtypes", default="fp32,bf16")
    ap.add_argument("--variants", default="inductor,solder,solder+graphs,solder-mm-eager",
                    help="solder-mm-eager: backend='solder' with matmuls left to torch")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--small", action="store_true", help="tiny widths and sequences (smoke test)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="write every row (times, checks, reports) here")
    args = ap.parse_args()
    args.variants = args.variants.split(",")
    if args.device == "cpu":
        args.iters, args.repeats = min(args.iters, 2), min(args.repeats, 1)
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 in every column
    torch.backends.cudnn.allow_tf32 = False

    rows = []
    for name in args.models.split(","):
        for dt in args.dtypes.split(","):
            print(f"{name} {dt} ...", file=sys.stderr, flush=True)
            rows.append(run_case(name, dt, args))
    variants = [v for v in args.variants if any(v in r or v + "_error" in r for r in rows)]
    dev = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    print(f"µs per forward, {dev}, torch {torch.__version__}\n")
    print(table(rows, variants))
    for r in rows:
        for v in variants:
            if v + "_error" in r:
                print(f"\n{r['model']} {r['dtype']} {v} failed: {r[v + '_error']}")
    for r in rows:
        if "solder_report" in r:
            print(f"\n### {r['model']} {r['dtype']}: Solder partitions\n{r['solder_report']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
