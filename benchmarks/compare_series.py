"""What compare_mpi's side steps (compare_rma, compare_mt, compare_coll) share:
their results (one number per repetition for each key, curve and size) and
the table + JSON rows they print through compare_mpi's Report."""

import statistics


class Series:
    """values[key][curve][size] -> one number per repetition (positive only)."""

    def __init__(self):
        self.values = {}

    def add(self, key, curve, size, value):
        if value is not None and value > 0:
            self.values.setdefault(key, {}).setdefault(curve, {}).setdefault(size, []).append(value)

    def med(self, key, curve, size):
        v = self.values.get(key, {}).get(curve, {}).get(size, [])
        return statistics.median(v) if v else None


def table(rep, res, key, curves, ratio_to, sizes, row_base, unit, fmt, width=11):
    """One size per line: each curve's median (`fmt`) and lapis over each of
    `ratio_to`; a JSON row per size ({row_base, size, reps, <curve>_<unit>,
    lapis_over_<other>})."""
    rep.say(f"{'size':>8}" + "".join(f" {c:>{width}}" for c in curves) +
            "".join(f" {'lapis/' + o:>16}" for o in ratio_to))
    for size in sizes:
        med = {c: res.med(key, c, size) for c in curves}
        if not any(med.values()):
            continue
        row = dict(row_base, size=size, reps=rep.args.reps)
        text = f"{size:>8}"
        for c in curves:
            if med[c]:
                row[f"{c}_{unit}"] = round(med[c], 4)
            text += f" {('-' if not med[c] else format(med[c], fmt)):>{width}}"
        for o in ratio_to:
            r = med["lapis"] / med[o] if med.get("lapis") and med.get(o) else None
            if r is not None:
                row[f"lapis_over_{o}"] = round(r, 4)
            text += f" {('-' if r is None else f'{r:.2f}'):>16}"
        rep.emit(row)
        rep.say(text)
