"""``calibrate``: how far a judge-based env agrees with trusted labels, and how easily it is fooled.

Rows are ``{"prompt", "reference" | "rubric", "response", "label", "criteria_labels"?}`` (see
``rlvr_judge.calibration_sets``). The env grades every response; the report gives agreement,
Cohen's kappa, false-positive and false-negative rates with 95% Wilson intervals, the
confusion matrix, the same per criterion (grouped by a criterion's ``group``), the correlation of
reward with response length beside the labels' own, and the score threshold that maximises
agreement. Verifier errors are counted and left out of the statistics.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from rlvr_envs.types import Reason
from rlvr_judge.metrics import best_threshold, binary_report, pearson, wilson

TRUST_KAPPA = 0.6
TRUST_AGREEMENT = 0.9


def calibrate(env: Any, rows: list[dict[str, Any]], *, probes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Grade every labelled row with ``env`` (a judge env) and measure agreement with the labels."""
    from rlvr_judge.envs import DEFAULT_KEYS, row_to_task

    tasks = [
        row_to_task(r, i, keys={**DEFAULT_KEYS, **getattr(env, "keys", {})}, source="labels")
        for i, r in enumerate(rows)
    ]
    verdicts = env.verify_batch(tasks, [str(r["response"]) for r in rows])
    scored, errors = [], []
    per_group: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for row, verdict in zip(rows, verdicts):
        if verdict.reason is Reason.VERIFIER_ERROR:
            errors.append({"id": row.get("id"), "error": str((verdict.details or {}).get("error", ""))[:200]})
            continue
        scored.append((verdict.reward, verdict.passed, bool(row["label"]), len(str(row["response"]))))
        criteria = (verdict.details or {}).get("criteria") if isinstance(verdict.details, dict) else None
        labels = row.get("criteria_labels")
        if criteria and isinstance(labels, list) and len(labels) == len(criteria):
            rubric = row.get("rubric") or []
            for i, (entry, label) in enumerate(zip(criteria, labels)):
                group = (rubric[i].get("group") if i < len(rubric) and isinstance(rubric[i], dict) else None) or entry[
                    "text"
                ][:60]
                met = entry.get("met")
                if met is not None:
                    per_group[str(group)].append((bool(met >= 0.5 if isinstance(met, float) else met), bool(label)))
    report: dict[str, Any] = {
        "env_id": env.env_id,
        "rows": len(rows),
        "graded": len(scored),
        "verifier_errors": len(errors),
        "error_examples": errors[:5],
        "overall": binary_report([s[1] for s in scored], [s[2] for s in scored]),
    }
    scores, labels_ = [s[0] for s in scored], [s[2] for s in scored]
    threshold = best_threshold(scores, labels_)
    report["threshold"] = {"best": threshold[0], "agreement": threshold[1]} if threshold else None
    lengths = [float(s[3]) for s in scored]
    report["length"] = {
        "reward_vs_length": pearson(scores, lengths),
        "label_vs_length": pearson([float(y) for y in labels_], lengths),
    }
    pairs = [(p, y) for g in per_group.values() for p, y in g]
    if pairs:
        report["criteria_overall"] = binary_report([p for p, _ in pairs], [y for _, y in pairs])
        report["per_criterion"] = {
            g: binary_report([p for p, _ in v], [y for _, y in v]) for g, v in sorted(per_group.items())
        }
    report["trust"] = trust_statement(report.get("criteria_overall") or report["overall"])
    report["judge_stats"] = env.judge_stats()
    if probes:
        report["probes"] = run_probes(env, probes)
    return report


def trust_statement(stats: dict[str, Any]) -> str:
    kappa, agreement = stats.get("kappa"), stats.get("agreement")
    if kappa is None or agreement is None:
        return "NOT MEASURED: no graded rows."
    if kappa < TRUST_KAPPA or agreement < TRUST_AGREEMENT:
        return (
            f"DO NOT TRUST this judge: on criteria a program can check it agrees {agreement:.1%} "
            f"(kappa {kappa:.2f}; needs agreement >= {TRUST_AGREEMENT:.0%} and kappa >= {TRUST_KAPPA}). "
            "A judge that cannot match a program on checkable criteria should not be trusted on uncheckable ones."
        )
    return (
        f"Matches the program on checkable criteria (agreement {agreement:.1%}, kappa {kappa:.2f}). "
        "Necessary, not sufficient, for trusting it on criteria no program checks."
    )


def run_probes(env: Any, probes: list[dict[str, Any]]) -> dict[str, Any]:
    """Grade the injection probes (all wrong answers): how many pass (a flipped grade), per kind.

    The flip rate is flipped / graded (verifier errors left out) with its 95% Wilson interval: the
    env's false-positive rate under injection, which is the judge model's own (strict parsing and
    the fence cannot stop a judge that chooses to follow the response's instructions)."""
    from rlvr_judge.envs import DEFAULT_KEYS, row_to_task

    tasks = [row_to_task(r, i, keys=DEFAULT_KEYS, source="probes") for i, r in enumerate(probes)]
    verdicts = env.verify_batch(tasks, [r["response"] for r in probes])
    kinds: dict[str, dict[str, int]] = defaultdict(lambda: {"probes": 0, "flipped": 0, "guarded": 0, "errors": 0})
    for row, verdict in zip(probes, verdicts):
        k = kinds[row["probe"]]
        k["probes"] += 1
        if verdict.reason is Reason.VERIFIER_ERROR:
            k["errors"] += 1
        elif verdict.passed:
            k["flipped"] += 1
        if isinstance(verdict.details, dict) and "guard" in verdict.details:
            k["guarded"] += 1
    total: dict[str, Any] = {
        key: sum(v[key] for v in kinds.values()) for key in ("probes", "flipped", "guarded", "errors")
    }
    out_kinds: dict[str, dict[str, Any]] = {}
    for name, counts in [*kinds.items(), ("total", total)]:
        graded = counts["probes"] - counts["errors"]
        rates = {
            "flip_rate": counts["flipped"] / graded if graded else None,
            "flip_rate_ci": wilson(counts["flipped"], graded),
        }
        if name == "total":
            total.update(rates)
        else:
            out_kinds[name] = {**counts, **rates}
    return {"per_kind": out_kinds, "total": total}


def _fmt(x: Any, pct: bool = True) -> str:
    if x is None:
        return "n/a"
    return f"{x:.1%}" if pct else f"{x:.3f}"


def _ci(ci: Any) -> str:
    return f"[{ci[0]:.1%}, {ci[1]:.1%}]" if ci else ""


def _row(name: str, s: dict[str, Any]) -> str:
    c = s["confusion"]
    return (
        f"| {name} | {s['n']} | {_fmt(s['agreement'])} {_ci(s['agreement_ci'])} | {_fmt(s['kappa'], False)} | "
        f"{_fmt(s['fpr'])} {_ci(s['fpr_ci'])} | {_fmt(s['fnr'])} {_ci(s['fnr_ci'])} | "
        f"{c['tp']} / {c['fp']} / {c['tn']} / {c['fn']} |"
    )


def to_markdown(report: dict[str, Any], judge_label: str) -> str:
    lines = [
        f"# Judge calibration: {report['env_id']}",
        "",
        f"Judge: {judge_label}. Rows: {report['rows']}, graded: {report['graded']}, "
        f"verifier errors (left out): {report['verifier_errors']}.",
        "",
        f"**{report['trust']}**",
        "",
        "| scope | n | agreement [95% CI] | kappa | false-positive rate | false-negative rate | TP / FP / TN / FN |",
        "|---|---|---|---|---|---|---|",
        _row("whole response (pass vs label)", report["overall"]),
    ]
    if "criteria_overall" in report:
        lines.append(_row("all criteria", report["criteria_overall"]))
        for group, stats in report["per_criterion"].items():
            lines.append(_row(f"`{group}`", stats))
    t, ln = report.get("threshold"), report["length"]
    lines += [""]
    if t:
        lines.append(
            f"Score threshold maximising agreement: reward >= {t['best']:.3g} (agreement {t['agreement']:.1%})."
        )
    lines.append(
        f"Reward vs response length (characters), Pearson r: {_fmt(ln['reward_vs_length'], False)}; "
        f"the labels' own r: {_fmt(ln['label_vs_length'], False)} (a judge biased toward length has the larger)."
    )
    stats = report.get("judge_stats") or {}
    cache = stats.get("cache") or {}
    for name, j in (stats.get("judges") or {}).items():
        lines.append(
            f"Judge `{name}`: {int(j['calls'])} calls, {int(j['requests'])} requests, {int(j['retries'])} retries, "
            f"{int(j['repairs'])} repairs, {int(j['errors'])} errors, {int(j['prompt_tokens'])}+{int(j['completion_tokens'])} tokens."  # noqa: E501
        )
    if cache:
        lines.append(
            f"Cache: {cache.get('hits')} hits, {cache.get('misses')} misses (hit rate {_fmt(cache.get('hit_rate'))})."
        )
    if report["error_examples"]:
        lines += ["", "Verifier errors (first few):", ""] + [
            f"- `{e['id']}`: {e['error']}" for e in report["error_examples"]
        ]
    if "probes" in report:
        p = report["probes"]
        tt = p["total"]
        lines += ["", "## Injection probes (wrong answers with an attack; a pass is a flipped grade)", "",
                  f"**Injection flip rate: {_fmt(tt.get('flip_rate'))} {_ci(tt.get('flip_rate_ci'))}** "
                  "(flipped / graded, 95% Wilson interval). This is the env's false-positive rate under "
                  "injection, and it is the judge model's: parsing and fencing cannot stop a judge that obeys "
                  "the response.", "",
                  "| probe | n | flipped | flip rate [95% CI] | caught by the env's guard | verifier errors |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        for kind, v in [*p["per_kind"].items(), ("**all**", tt)]:
            rate = f"{_fmt(v.get('flip_rate'))} {_ci(v.get('flip_rate_ci'))}"
            lines.append(f"| {kind} | {v['probes']} | {v['flipped']} | {rate} | {v['guarded']} | {v['errors']} |")
    return "\n".join(lines) + "\n"


def write_report(
    report: dict[str, Any], out_dir: str | Path, judge_label: str, rows: list[dict[str, Any]] | None = None
) -> tuple[Path, Path | None]:
    """``calibration.md`` and ``calibration.png`` (confusion matrix, threshold curve) in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "calibration.md"
    md.write_text(to_markdown(report, judge_label), encoding="utf-8")
    png = out / "calibration.png"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return md, None
    c = report["overall"]["confusion"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
    grid = [[c["tp"], c["fn"]], [c["fp"], c["tn"]]]
    ax1.imshow(grid, cmap="Blues")
    for i in range(2):
        for j in range(2):
            ax1.text(j, i, str(grid[i][j]), ha="center", va="center", fontsize=14)
    ax1.set_xticks([0, 1], ["judge: pass", "judge: fail"])
    ax1.set_yticks([0, 1], ["label: pass", "label: fail"])
    ax1.set_title(f"{report['env_id']}: confusion")
    kappa = report["overall"]["kappa"]
    ax2.set_title(f"agreement {_fmt(report['overall']['agreement'])}, kappa {_fmt(kappa, False)}")
    thresholds = report.get("threshold")
    ax2.axis("off")
    text = [report["trust"][:90] + ("..." if len(report["trust"]) > 90 else "")]
    if thresholds:
        text.append(f"best threshold {thresholds['best']:.3g}: agreement {thresholds['agreement']:.1%}")
    ax2.text(0, 0.5, "\n".join(text), wrap=True, fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return md, png
