import sys
def load(f):
    return [(int(a),b,int(c),int(d)) for a,b,c,d in (l.split() for l in open(f))]
r=[load(sys.argv[1]),load(sys.argv[2])]
t00=min(r[0][0][0],r[1][0][0])
for x in (0,1):
    me=r[x]
    T=[e[0] for e in me if e[1]=='T']; A=[e[0] for e in me if e[1]=='A']; E=[e[0] for e in me if e[1]=='E']
    out=[]
    for i in range(min(len(T)-1,len(A))):
        h=T[i+1]-A[i]
        if h>200_000: out.append(f"{i}:{h//1000}@{(A[i]-t00)//1000000}ms")
    print("rank",x,"host>200us:", ' '.join(out))
    out=[f"{i}:{(E[i]-T[i])//1000}@{(T[i]-t00)//1000000}ms" for i in range(min(len(T),len(E))) if E[i]-T[i]>200_000]
    print("rank",x,"proxy>200us:", ' '.join(out))
