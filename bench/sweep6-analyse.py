# bench/sweep6-analyse.py FILE: per repetition of bench/sweep6.sh's output, the 6-point run less the fixed cost (1-point run less 1 s)
# against 6 s, and where the 6-point sweep's time went (bench/README.md §l, "Where a sweep's time goes").
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1]) if l[0].isdigit()]
by={}
for r in rows:
    rep,kind,load,wall,sweep,ver,cw,so,n=r
    by.setdefault(rep,{})[kind]=dict(load=float(load),wall=float(wall),sweep=float(sweep),ver=float(ver),cw=float(cw),so=float(so))
out=[]
for rep,d in sorted(by.items()):
    a,b=d['1'],d['6']
    fixed=a['wall']-1
    net=b['wall']-fixed
    gaps=b['sweep']-b['ver']-b['cw']
    start=b['cw']-6
    out.append((net,))
    print(f"rep {rep}: load {a['load']:.1f}-{b['load']:.1f}  T1 {a['wall']:.2f}  T6 {b['wall']:.2f}  T6-(T1-1) {net:.2f} s = {100*(net/6-1):+.1f} %  | 6-pt sweep {b['sweep']:.2f} = verify {b['ver']:.1f} (1-pt {a['ver']:.1f}) + openssl wall {b['cw']:.2f} (openssl says {b['so']:.2f}) + agent between points {gaps:.2f}; openssl wall-1 s per point {start/6*1000:.0f} ms")
nets=[o[0] for o in out]
print(f"median T6-(T1-1) {st.median(nets):.2f} s = {100*(st.median(nets)/6-1):+.1f} % of 6 s")
