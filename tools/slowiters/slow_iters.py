#!/usr/bin/env python3
# Run: python3 slow_iters.py DIR [LIMIT_US]   (every DIR/*.json; LIMIT_US default 200)
#
# Counts, in each -J file of DIR written with -I 1, the iterations slower than LIMIT_US: -I 1
# records every timed iteration (the largest time over ranks) in out_of_place_per_iter /
# in_place_per_iter.times_us.
import glob
import json
import sys


def iteration_times(doc):
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

    walk(doc)
    return times


def main():
    if len(sys.argv) not in (2, 3):
        print('usage: slow_iters.py DIR [LIMIT_US]', file=sys.stderr)
        return 2
    limit = float(sys.argv[2]) if len(sys.argv) == 3 else 200.0
    files = sorted(glob.glob(sys.argv[1] + '/*.json'))
    if not files:
        print(f'slow_iters.py: no .json file in {sys.argv[1]}', file=sys.stderr)
        return 2
    for f in files:
        with open(f) as fh:
            times = iteration_times(json.load(fh))
        if not times:
            print(f'{f.split("/")[-1]:24s} no per-iteration times (run with -I 1)')
            continue
        slow = sum(t > limit for t in times)
        print(f'{f.split("/")[-1]:24s} iterations {len(times):5d}  over {limit:g} us {slow:3d}  max {max(times):8.1f} us')
    return 0


if __name__ == '__main__':
    sys.exit(main())
