# Summarise "== coll setting... run r" blocks of nccl-tests-style rows: per (coll, setting, size) the range of busbw out of place and in place.
import sys, re, collections
f=sys.argv[1]; keyf=int(sys.argv[2]) if len(sys.argv)>2 else 2  # how many words after coll form the setting
d=collections.defaultdict(lambda: ([],[]))
hdr=None
for line in open(f):
    if line.startswith('== '):
        w=line.split()[1:]; hdr=(w[0],' '.join(w[1:1+keyf])); continue
    p=line.split()
    if hdr and len(p)>=12 and p[0].isdigit() and int(p[0])>0:
        size=int(p[0])>>20
        d[(hdr[0],hdr[1],size)][0].append(float(p[7])); d[(hdr[0],hdr[1],size)][1].append(float(p[11]))
for k in sorted(d, key=lambda k:(k[0],k[2],k[1])):
    o,i=d[k]
    print(f"{k[0]:9s} {k[1]:12s} {k[2]:5d} MiB  out {min(o):6.2f}-{max(o):6.2f}  in {min(i):6.2f}-{max(i):6.2f}  (n={len(o)})")
