# Counts the iterations over 200 µs in -J files written with -I 1 (every iteration's time,
# the largest over ranks, in out_of_place_per_iter / in_place_per_iter.times_us).
import glob, json, sys

for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    times = []
    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k.endswith('_per_iter') and isinstance(v, dict) and 'times_us' in v:
                    times.extend(v['times_us'])
                else:
                    walk(v)
        elif isinstance(x, list):
            for y in x:
                walk(y)
    walk(json.load(open(f)))
    print(f"{f.split('/')[-1]:24s} iterations {len(times):5d}  over 200 us {sum(t > 200 for t in times):3d}  max {max(times):8.1f} us")
