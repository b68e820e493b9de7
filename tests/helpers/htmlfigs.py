"""check-html's checks of the charts that carry their values (issue 30).

A sweep's Little's-law table and figures (render/out_html_little.c) and
compare's summary (render/out_html_compare.c): every cell shown equals
the JSON within its printed resolution, every point drawn carries the
JSON's value exactly (data-x / data-y / data-value / data-lo / data-hi),
and points lie in the order of their values (a larger value is drawn
higher, or further right).
"""
import re


def to_us(text):
    """'188.6 µs' / '4.321 ms' / '1.234 s' -> (value in us, resolution)."""
    m = re.fullmatch(r"\s*([-+0-9.]+)\s*(µs|ms|s)\s*", text)
    if not m:
        return None, None
    v, unit = float(m.group(1)), m.group(2)
    decimals = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    scale = {"µs": 1.0, "ms": 1e3, "s": 1e6}[unit]
    return v * scale, 0.5 * 10 ** -decimals * scale


def cell_ok(text, want, kind):
    """A cell against the JSON: kind 'us' (a duration), or the decimals."""
    if want is None:
        return text == "n/a"
    if kind == "us":
        got, res = to_us(text)
        return got is not None and abs(got - want) <= res + 1e-9
    try:
        return abs(float(text) - want) <= 0.5 * 10 ** -kind + 1e-9
    except ValueError:
        return False


def ordered(pts, what, problems, axis="cy"):
    """pts: (value, position); a larger value is higher (cy smaller) or
    further right (cx larger)."""
    for a in pts:
        for b in pts:
            if a[0] > b[0] * 1.01 + 1e-9:
                up = a[1] < b[1] if axis == "cy" else a[1] > b[1]
                if not up:
                    problems.append(f"{what}: {a[0]} drawn at {a[1]}, "
                                    f"{b[0]} at {b[1]}")
                    return


LITTLE_CELLS = (("concurrency", 0), ("ops_per_sec", 1), ("mean_us", "us"),
                ("p50_us", "us"), ("p99_us", "us"), ("L", 3),
                ("little_iops", 1), ("naive_capacity", 1))


def little_want(lt):
    """series -> [(x, y)] the charts must draw, from the little object."""
    ok = [p for p in lt["points"] if p["status"] == "ok"]
    want = {k: [(p["level"], p[k]) for p in ok if p[k] is not None]
            for k in ("ops_per_sec", "little_iops", "mean_us", "p50_us",
                      "p99_us")}
    want["naive_capacity"] = [(p["level"], lt["naive_capacity"])
                              for p in ok] \
        if lt.get("naive_capacity") is not None else []
    want["L"] = [(p["concurrency"], p["L"]) for p in ok if p["L"] is not None]
    return want


def check_little(page, doc, problems):
    lt = doc.get("little")
    tables = page.query_selector_all("table.little")
    if not lt:
        if tables:
            problems.append("a Little's-law table, the JSON has no little")
        return 0
    if len(tables) != 1:
        problems.append(f"{len(tables)} Little's-law tables, expected 1")
        return 0
    checked = 0
    pts = {p["level"]: p for p in lt["points"]}
    rows = tables[0].query_selector_all("tr[data-level]")
    if len(rows) != len(pts):
        problems.append(f"{len(rows)} levels shown, JSON {len(pts)}")
    for row in rows:
        p = pts.get(int(row.get_attribute("data-level")))
        if p is None:
            problems.append(f"level {row.get_attribute('data-level')} "
                            "not in the JSON")
            continue
        for stat, kind in LITTLE_CELLS:
            c = row.query_selector(f'td[data-stat="{stat}"]')
            text = c.inner_text().strip() if c else None
            if text is None or not cell_ok(text, p.get(stat), kind):
                problems.append(f"level {p['level']} {stat}: shows {text}, "
                                f"JSON {p.get(stat)}")
            checked += 1
    for key, want in little_want(lt).items():
        got = [(float(c.get_attribute("data-x")),
                float(c.get_attribute("data-y")),
                float(c.get_attribute("cy")))
               for c in page.query_selector_all(
                   f'circle.pt[data-series="{key}"]')]
        if sorted((x, y) for x, y, _ in got) != sorted(
                (float(x), float(y)) for x, y in want):
            problems.append(f"series {key}: drawn {[(x, y) for x, y, _ in got]}"
                            f", JSON {want}")
        ordered([(y, cy) for _, y, cy in got], f"series {key}", problems)
        checked += len(got)
    return checked


def check_spread(page, doc, problems):
    """compare: each filesystem's ops/s and p99 over the rounds, the
    table and the summary chart's dots and bars."""
    checked = 0
    for w in doc.get("workloads", []):
        res = [t for t in w.get("results", []) if t.get("spread")]
        table = page.query_selector(
            f'table.spread[data-workload="{w["name"]}"]')
        if not res:
            if table:
                problems.append(f"{w['name']}: a spread table, none in JSON")
            continue
        if not table:
            problems.append(f"{w['name']}: no spread table")
            continue
        for m, kind in (("ops_per_sec", 1), ("p99_us", "us")):
            dots = []
            for t in res:
                fs = t.get("label") or t["fs"]
                s = t["spread"].get(m)
                row = table.query_selector(
                    f'tr[data-fs="{fs}"][data-metric="{m}"]')
                for k in ("mean", "lo", "hi"):
                    c = row.query_selector(f'td[data-stat="{k}"]') \
                        if row else None
                    text = c.inner_text().strip() if c else None
                    want = s.get(k) if s else None
                    if text is None or not cell_ok(text, want, kind):
                        problems.append(f"{w['name']} {fs} {m} {k}: shows "
                                        f"{text}, JSON {want}")
                    checked += 1
                c = page.query_selector(
                    f'circle.iv[data-key="{w["name"]}/{fs}/{m}"]')
                if s is None:
                    if c:
                        problems.append(f"{w['name']} {fs} {m}: a dot, "
                                        "JSON null")
                    continue
                if not c:
                    problems.append(f"{w['name']} {fs} {m}: no dot")
                    continue
                for k, a in (("mean", "data-value"), ("lo", "data-lo"),
                             ("hi", "data-hi")):
                    v = c.get_attribute(a)
                    got = float(v) if v is not None else None
                    if got != s.get(k):
                        problems.append(f"{w['name']} {fs} {m} {k}: drawn "
                                        f"{got}, JSON {s.get(k)}")
                    checked += 1
                dots.append((s["mean"], float(c.get_attribute("cx"))))
            ordered(dots, f"{w['name']} {m} dots", problems, axis="cx")
    return checked
