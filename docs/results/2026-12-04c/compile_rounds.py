import re,sys,collections
rows=[]
for fn in sys.argv[1:]:
    txt=open(fn).read()
    for blk in re.split(r'^===== ',txt,flags=re.M)[1:]:
        name=blk.split('\n',1)[0]
        ms=collections.defaultdict(list)
        for m in re.finditer(r'solder: kernel (\S+) \[(\w+)\] (.*?): ([\d.]+) ms',blk): ms[m.group(1)].append(float(m.group(4)))
        parts=re.split(r'^segment \d+ kernel ',blk,flags=re.M)[1:]
        for p in parts:
            kn,sch=re.match(r'(\S+) \(([^)]*)\)',p).groups()
            sched=re.search(r'scheduler: (\w+)',p).group(1)
            k=len(re.findall(r'rejected first: .*B spilled',p))
            rows.append((fn[-6:-4]+':'+name[:50],kn,sched,k,ms.get(kn,[])))
def rounds(k,F,W=4):
    if k<F: return 1
    return 1+-(-(k+1-F)//W)
for F in (1,2,3,4):
    tot=collections.Counter()
    for r in rows:
        f=4 if r[2]=='outer_norm' else F
        tot[r[2],'n']+=1; tot[r[2],'x']+= rounds(r[3],f)>1; tot[r[2],'k']+= r[3]>0; tot[r[2],'c']+=max(f,r[3]+1)
    print('F',F,{s:(tot[s,'n'],tot[s,'k'],tot[s,'x'],tot[s,'c']) for s in sorted(set(x for x,_ in tot))})
print('kernels with a spilled first:')
for r in rows:
    if r[3]>0: print(r[0],r[2],r[3],[round(x) for x in r[4]])
