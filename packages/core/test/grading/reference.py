"""An independent implementation of the grading rules (docs/api.md "Weather data") for the
tests: the sample rule with datetime, percentile ranks with scipy's
percentileofscore(kind="mean"), bands with numpy's median_unbiased quantiles; and of the trend
rules: yearly means and sums with numpy over datetime64 years, the periods and their shifted
spans with datetime; and of the spell rules (heat waves by EHF, cold spells, dry and wet spells,
their ranks and the yearly counts), with numpy's percentiles. Reads one JSON request on stdin, writes the
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


def pay_round(x, digits):
    """The payloads' rounding: half away from zero, 1e-9 forgiving a binary half."""
    f = 10 ** digits
    r = math.floor(abs(x) * f + 1e-9 + 0.5) / f
    return -r if x < 0 else r


def spells(req):
    """The spell rules (docs/api.md "Spells"), written again with numpy: the series' t, the
    baseline's percentiles by np.percentile (linear), every window's factor, the flagged days, then
    runs of them; ranks by counting."""
    start = datetime.date.fromisoformat(req["start"])
    tmax = np.array([np.nan if x is None else x for x in req["tmax"]], dtype=float)
    tmin = np.array([np.nan if x is None else x for x in req["tmin"]], dtype=float)
    precip = [None if x is None else x for x in req["precip"]]
    n = len(tmax)
    record_last = datetime.date.fromisoformat(req["recordLast"])
    today = datetime.date.fromisoformat(req["today"])
    day = lambda i: start + datetime.timedelta(days=i)
    index = lambda d: (d - start).days
    t = (tmax + tmin) / 2
    if start <= datetime.date(1961, 1, 1) and record_last >= datetime.date(1990, 12, 31):
        baseline = (1961, 1990)
    else:
        y0 = start.year if (start.month, start.day) == (1, 1) else start.year + 1
        baseline = (y0, y0 + 29) if record_last >= datetime.date(y0 + 29, 12, 31) else None
    out = {"first": start.isoformat(), "last": record_last.isoformat(), "until": day(n - 1).isoformat(),
           "baseline": None if baseline is None else {"from": baseline[0], "to": baseline[1]}}
    runs = {"heat": [], "cold": []}
    thresholds = None
    if baseline is not None:
        b0 = max(0, index(datetime.date(baseline[0], 1, 1)))
        b1 = min(n - 1, index(datetime.date(baseline[1], 12, 31)))
        bt = t[b0:b1 + 1]
        bt = bt[~np.isnan(bt)]
        if bt.size > 0:
            t95 = float(np.percentile(bt, 95))
            t05 = float(np.percentile(bt, 5))
            ehf = np.full(n, np.nan)
            cf = np.full(n, np.nan)
            for i in range(30, n - 2):
                w = t[i - 30:i + 3]
                if np.isnan(w).any():
                    continue
                acc = 0.0
                for k in range(i - 30, i):
                    acc += t[k]
                acc /= 30
                m3 = (t[i] + t[i + 1] + t[i + 2]) / 3
                ehf[i] = (m3 - t95) * max(1.0, m3 - acc)
                cf[i] = (t05 - m3) * max(1.0, acc - m3)
            pos = lambda f: f[b0:b1 + 1][f[b0:b1 + 1] > 0]
            p85 = lambda xs: float(np.percentile(xs, 85)) if xs.size > 0 else None
            ehf85, cf85 = p85(pos(ehf)), p85(pos(cf))
            thresholds = {"t95": pay_round(t95, 2), "t05": pay_round(t05, 2),
                          "ehf85": None if ehf85 is None else pay_round(ehf85, 2),
                          "cf85": None if cf85 is None else pay_round(cf85, 2)}
            for kind, f, p in (("heat", ehf, ehf85), ("cold", cf, cf85)):
                flag = np.zeros(n, dtype=bool)
                for i in np.nonzero(f > 0)[0]:
                    flag[i:i + 3] = True
                i = 0
                while i < n:
                    if not flag[i]:
                        i += 1
                        continue
                    j = i
                    while j + 1 < n and flag[j + 1]:
                        j += 1
                    peak = max(float(v) for v in f[i:j - 1] if v > 0)
                    sev = "low" if p is None or peak < p else ("extreme" if peak >= 3 * p else "severe")
                    runs[kind].append({"a": i, "b": j, "value": peak, "severity": sev})
                    i = j + 1
    out["thresholds"] = thresholds

    def precip_runs(test, least):
        found = []
        i = 0
        while i < n:
            if precip[i] is None or not test(precip[i]):
                i += 1
                continue
            j = i
            while j + 1 < n and precip[j + 1] is not None and test(precip[j + 1]):
                j += 1
            if j - i + 1 >= least:
                total = 0.0
                for k in range(i, j + 1):
                    total += precip[k]
                found.append({"a": i, "b": j, "value": total})
            i = j + 1
        return found

    runs["dry"] = precip_runs(lambda v: v < 1, 5)
    runs["wet"] = precip_runs(lambda v: v >= 1, 3)
    spells_of = {}
    for kind, found in runs.items():
        items = []
        for r in found:
            days = r["b"] - r["a"] + 1
            item = {"kind": kind, "start": day(r["a"]).isoformat(), "end": day(r["b"]).isoformat(), "days": days}
            if kind in ("heat", "cold"):
                item["peak"] = pay_round(r["value"], 1)
                item["severity"] = r["severity"]
            if kind == "wet":
                item["total"] = pay_round(r["value"], 1)
            item["rank_days"] = 1 + sum(1 for o in found if o["b"] - o["a"] + 1 > days)
            if kind in ("heat", "cold"):
                item["rank_peak"] = 1 + sum(1 for o in found if o["value"] > r["value"])
            if kind == "wet":
                item["rank_total"] = 1 + sum(1 for o in found if o["value"] > r["value"])
            item["of"] = len(found)
            item["forecast"] = day(r["b"]) > record_last
            items.append(item)
        spells_of[kind] = items
    every = [x for kind in ("heat", "cold", "dry", "wet") for x in spells_of[kind]]
    out["now"] = sorted([x for x in every if x["end"] >= today.isoformat()], key=lambda x: x["start"])
    rank_key = {"heat": "rank_peak", "cold": "rank_peak", "dry": "rank_days", "wet": "rank_total"}
    out["top"] = {k: sorted(spells_of[k], key=lambda x: (x[rank_key[k]], x["start"]))[:10] for k in spells_of}
    years = []
    for year in range(start.year, day(n - 1).year + 1):
        inside = lambda x: sum(1 for i in range(index(datetime.date.fromisoformat(x["start"])), index(datetime.date.fromisoformat(x["end"])) + 1) if day(i).year == year)
        years.append({
            "year": year,
            "heat_days": sum(inside(x) for x in spells_of["heat"]),
            "cold_days": sum(inside(x) for x in spells_of["cold"]),
            "dry_longest": max([x["days"] for x in spells_of["dry"] if x["end"][:4] == str(year)], default=0),
            "wet_days": sum(inside(x) for x in spells_of["wet"]),
        })
    out["years"] = years
    since = (today - datetime.timedelta(days=730)).isoformat()
    out["recent"] = sorted([x for x in every if x["end"] >= since], key=lambda x: x["start"])
    return out


def main():
    req = json.load(sys.stdin)
    if req["kind"] == "trend":
        answer = trend(req)
    elif req["kind"] == "spells":
        answer = spells(req)
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
