"""The monitoring files of deploy/ (issue 15 §4), read by Prometheus's own tool: the alert and
recording rules load (`promtool check rules`) and fire on the series bsfd writes (`promtool
test rules`), every query of the Grafana dashboard is valid PromQL, and every metric they
name is one bsfd documents (docs/*.md), so a renamed metric cannot leave them behind."""

import json
import re
import shutil
import subprocess

import pytest

from conftest import REPO

RULES = REPO / "deploy" / "prometheus" / "bsf-rules.yml"
RULES_TEST = REPO / "deploy" / "prometheus" / "bsf-rules.test.yml"
DASHBOARD = REPO / "deploy" / "grafana" / "bsf-dashboard.json"
METRIC = re.compile(r"\b((?:bsf|ocbsf|diam|dgw|process|data_repository|oc_db)_[a-z0-9_]+)")
# A histogram's series are documented under the histogram's name.
SUFFIXES = ("_bucket", "_sum", "_count")


def promtool(*args, cwd=None):
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool is missing: apt-get install prometheus (scripts/install-deps.sh)")
    done = subprocess.run([tool, *map(str, args)], capture_output=True, text=True, timeout=60,
                          cwd=cwd)
    assert done.returncode == 0, f"promtool {' '.join(map(str, args))}\n{done.stdout}{done.stderr}"
    return done.stdout


def dashboard_queries():
    dash = json.loads(DASHBOARD.read_text())
    out = []
    for panel in dash["panels"]:
        for target in panel.get("targets", []):
            out.append(target["expr"])
    return dash, out


def documented_metrics():
    text = "\n".join(p.read_text() for p in (REPO / "docs").glob("*.md"))
    return set(re.findall(r"`[^`]*`", text)), text


def test_rules_load_and_fire():
    out = promtool("check", "rules", RULES)
    assert "SUCCESS" in out, out
    assert "SUCCESS" in promtool("test", "rules", RULES_TEST.name, cwd=RULES_TEST.parent)


def test_dashboard_queries_are_valid_promql(tmp_path):
    dash, queries = dashboard_queries()
    assert dash["uid"] and dash["title"] and len(queries) >= 20
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    # Grafana's variables as Prometheus would receive them, each query as a recording rule
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query{i}",
         "expr": q.replace("$__rate_interval", "5m").replace("$instance", ".*")}
        for i, q in enumerate(queries)]}]}
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(json.dumps(rules))  # JSON is YAML
    assert f"SUCCESS: {len(queries)} rules found" in promtool("check", "rules", path)


def test_every_metric_named_is_documented():
    _, queries = dashboard_queries()
    rules_text = RULES.read_text()
    recorded = set(re.findall(r"record: (\S+)", rules_text))
    named = set(METRIC.findall(rules_text + "\n".join(queries))) - recorded
    _, docs = documented_metrics()
    missing = []
    for name in sorted(named):
        forms = {name} | {name[: -len(s)] for s in SUFFIXES if name.endswith(s)}
        if not any(re.search(rf"`{re.escape(f)}[`{{]", docs) for f in forms):
            missing.append(name)
    assert not missing, f"metrics in deploy/ that docs/ does not describe: {missing}"
    assert "oc_db_active_session_count" in recorded  # the seed's name, recorded
