# For each large trigger on rank A: per data socket of the peer B, header times and read durations.
import sys
def load(f):
    return [(int(a),b,int(c),int(d)) for a,b,c,d in (l.split() for l in open(f))]
a,b=load(sys.argv[1]),load(sys.argv[2])
for name,me,peer in (("A",a,b),("B",b,a)):
    trig=[e for e in me if e[1]=='T' and e[3]>=1<<20]
    for t in trig[-2:]:
        t0=t[0]; print(f"== rank {name} trigger {t[3]}")
        for sock in range(8):
            seq=[(e[1],(e[0]-t0)//1000) for e in peer if e[2]==sock and e[1] in 'HRL' and t0<=e[0]<t0+12_000_000]
            sseq=[(e[1],(e[0]-t0)//1000) for e in me if e[2]==sock and e[1] in 'CSW' and t0<=e[0]<t0+12_000_000]
            print(f"  {sock} send {' '.join(f'{k}{v}' for k,v in sseq[:14])}\n    recv {' '.join(f'{k}{v}' for k,v in seq[:14])}")
