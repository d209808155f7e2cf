# Small-message trace: split every iteration into segments and count the long ones.
import sys, bisect
def load(f):
    return [(int(a),b,int(c),int(d)) for a,b,c,d in (l.split() for l in open(f))]
r=[load(sys.argv[1]),load(sys.argv[2])]
thr=float(sys.argv[3]) if len(sys.argv)>3 else 200
def times(ev,k): return [e[0] for e in ev if e[1]==k]
for x in (0,1):
    me,peer=r[x],r[1-x]
    T,E=times(me,'T'),times(me,'E')
    Hp=[e[0] for e in peer if e[1]=='H' and e[3]==1]  # data headers on peer's ctl socket
    Ap=times(peer,'A'); Ame=times(me,'A')
    n=min(len(T),len(E),len(Hp),len(Ap))
    segs={'proxy T->E':[], 'wire E->peerH':[], 'peer H->A':[], 'host A->nextT':[]}
    for i in range(n):
        segs['proxy T->E'].append(E[i]-T[i]); segs['wire E->peerH'].append(Hp[i]-E[i]); segs['peer H->A'].append(Ap[i]-Hp[i])
        if i+1<len(T) and i<len(Ame): segs['host A->nextT'].append(T[i+1]-Ame[i])
    print(f"rank {x}: {n} iterations")
    for k,v in segs.items():
        v2=sorted(v); big=[t/1000 for t in v if t>thr*1000]
        print(f"  {k:15s} median {v2[len(v2)//2]/1000:7.1f} us  p99 {v2[int(len(v2)*.99)]/1000:8.1f}  over {thr:.0f}us: {len(big):3d}  max {v2[-1]/1000:8.1f}")
