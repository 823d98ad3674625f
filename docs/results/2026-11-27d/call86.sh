# What a timed call puts on the GPU stream: torch.profiler's CUDA activities of 3 back-to-back
# calls of each side (Solder, torch.compile) for small programs whose kernels ncu timed alike
# (call85: seed 20 #091 2.85 against 2.75 us) while the sweep's timer differs by ~0.7 us.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
cat > /tmp/o/prof.py <<'P'
import sys, torch
sys.path.insert(0, "bench")
import variants
orig = variants.Timer.__call__
def traced(self, fn):
    r = orig(self, fn)
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print("TRACE median %.2f us:" % r[0], [(e.name[:40], round(e.device_time, 2)) for e in evs], flush=True)
    return r
variants.Timer.__call__ = traced
sys.exit(variants.main(sys.argv[1:]))
P
for sp in "20 091" "20 043" "21 034"; do set -- $sp
  PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 100 python3 /tmp/o/prof.py --seed $1 --only "^($2) " --no-probe --no-l2-flush --time-budget 60 -o /tmp/o/p.json 2>&1 | grep -E "TRACE" | cut -c1-700 | tee -a $R/trace.txt
  echo "== $1 $2 $SECONDS s"; done
