"""An independent implementation of CONTRACT.md §4 for the tests: the sample rule with datetime,
percentile ranks with scipy's percentileofscore(kind="mean"), bands with numpy's median_unbiased
quantiles. Reads one JSON request on stdin, writes the answer on stdout."""
import datetime
import json
import sys

import numpy as np
from scipy.stats import percentileofscore

PS = [0.1, 0.25, 0.5, 0.75, 0.9]


def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def sample(start, values, target):
    end = start + datetime.timedelta(days=len(values) - 1)
    out = []
    for year in range(start.year, end.year + 1):
        if year == target.year:
            continue
        if target.month == 2 and target.day == 29 and not is_leap(year):
            centre = datetime.date(year, 2, 28)
        else:
            centre = datetime.date(year, target.month, target.day)
        for k in range(-2, 3):
            i = (centre + datetime.timedelta(days=k) - start).days
            if 0 <= i < len(values) and values[i] is not None:
                out.append(values[i])
    return out


def main():
    req = json.load(sys.stdin)
    if req["kind"] == "samples":
        answer = []
        for case in req["cases"]:
            s = np.array(case["sample"], dtype=float)
            answer.append({
                "p": [float(percentileofscore(s, x, kind="mean")) for x in case["xs"]],
                "q": [float(v) for v in np.quantile(s, PS, method="median_unbiased")],
            })
    else:
        start = datetime.date.fromisoformat(req["start"])
        values = req["values"]
        answer = []
        for t in req["targets"]:
            target = datetime.date.fromisoformat(t)
            s = sample(start, values, target)
            i = (target - start).days
            x = values[i] if 0 <= i < len(values) else None
            answer.append({
                "n": len(s),
                "p": None if x is None or not s else float(percentileofscore(np.array(s), x, kind="mean")),
                "q": [float(v) for v in np.quantile(np.array(s), PS, method="median_unbiased")] if s else None,
                "min": min(s) if s else None,
                "max": max(s) if s else None,
            })
    json.dump(answer, sys.stdout)


main()
