"""An independent implementation of the grading rules (docs/api.md "Weather data") for the
tests: the sample rule with datetime, percentile ranks with scipy's
percentileofscore(kind="mean"), bands with numpy's median_unbiased quantiles; and of the trend
rules: yearly means and sums with numpy over datetime64 years, the periods and their shifted
spans with datetime. Reads one JSON request on stdin, writes the
answer on stdout."""
import datetime
import json
import math
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


VARIABLES = ["tmax", "tmin", "precip"]


def round_tenth(x):
    """0.1, halves upwards; 1e-9 forgives a mean's binary error at a true half."""
    return math.floor(x * 10 + 0.5 + 1e-9) / 10


def statistic(variable, values):
    return float(np.sum(values)) if variable == "precip" else float(np.mean(values))


def back(day, years):
    """The same month and day `years` earlier; 29 February becomes 28 February in a common year."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def trend(req):
    start = datetime.date.fromisoformat(req["start"])
    series = {v: np.array([np.nan if x is None else x for x in req[v]], dtype=float) for v in VARIABLES}
    n = len(series["tmax"])
    last = start + datetime.timedelta(days=n - 1)
    days = np.arange(np.datetime64(start.isoformat()), np.datetime64(last.isoformat()) + 1)
    year_of = days.astype("datetime64[Y]").astype(int) + 1970
    years = []
    for year in range(start.year, last.year + 1):
        inside = year_of == year
        row = {"year": year, "days": int(inside.sum())}
        for v in VARIABLES:
            values = series[v][inside]
            values = values[~np.isnan(values)]
            row[v] = None if values.size < 300 else round_tenth(statistic(v, values))
            row[v + "_exact"] = None if values.size < 300 else statistic(v, values)
        years.append(row)

    def whole(v, first, to):
        if first < start:
            return None
        values = series[v][(first - start).days:(to - start).days + 1]
        return None if np.isnan(values).any() else statistic(v, values)

    m = last.month
    season = datetime.date(last.year if m == 12 else last.year - 1, 12, 1) if m in (12, 1, 2) else datetime.date(last.year, m - (m - 3) % 3, 1)
    spans = {"month": last.replace(day=1), "season": season, "year": datetime.date(last.year, 1, 1)}
    periods = {}
    for name, first in spans.items():
        out = {"from": first.isoformat(), "to": last.isoformat(), "variables": {}}
        for v in VARIABLES:
            compared = []
            k = 1
            while back(first, k) >= start:
                value = whole(v, back(first, k), back(last, k))
                if value is not None:
                    compared.append({"year": last.year - k, "value": value})
                k += 1
            own = whole(v, first, last)
            standing = {"exact": own, "value": None, "rank": None, "of": len(compared) + 1, "highest": None, "lowest": None}
            if own is not None:
                rounded = [(c["year"], round_tenth(c["value"])) for c in compared] + [(last.year, round_tenth(own))]
                value = round_tenth(own)
                top = max(v for _, v in rounded)
                bottom = min(v for _, v in rounded)
                standing.update({
                    "value": value,
                    "rank": 1 + sum(1 for _, x in rounded if x > value),
                    "highest": {"year": min(y for y, x in rounded if x == top), "value": top},
                    "lowest": {"year": min(y for y, x in rounded if x == bottom), "value": bottom},
                })
            out["variables"][v] = standing
        periods[name] = out
    return {"first": start.isoformat(), "last": last.isoformat(), "years": years, "periods": periods}


def main():
    req = json.load(sys.stdin)
    if req["kind"] == "trend":
        answer = trend(req)
    elif req["kind"] == "samples":
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
