#!/usr/bin/python3
"""Trains IsolationForests as people save them, for the figures in docs/benchmarks.md ("Isolation
forests"): what the reconstruction certifies and how well membership ranks members, with
IsolationForest's defaults (100 trees, max_samples='auto': 256 rows a tree, every row when N is
smaller) unless the name says otherwise.

  iso_cancer_200        200 breast cancer rows (every tree holds all 200)
  iso_cancer_200_ms64   the same rows, max_samples=64
  iso_pima              all 768 Pima rows (features only)
  iso_credit_1k         1,000 Default Credit rows (a seeded sample)
  iso_credit_10k        10,000 Default Credit rows

For each: NAME.joblib, NAME.train.csv (the training rows, features only: the model has no label)
and NAME.candidates.csv (the training rows, then as many rows of the same data set it was not
trained on, at most 1,000 of each, with a `member` column, 1 or 0; Pima has none).

    /usr/bin/python3 test/bench/make-isolation-forests.py OUT_DIR
    for m in OUT_DIR/*.joblib; do n=${m%.joblib}
      /usr/bin/time -f "%e s %M KB" node dist/cli.js $m --budget 60 --training-data $n.train.csv \
        --membership $n.candidates.csv --members-column member --format json > $n.out.json; done

Debian's python3-sklearn 1.2.1; fixed seeds.
"""
import csv
import os
import sys

import joblib
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import IsolationForest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture_io  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def from_csv(name):
    with open(os.path.join(fixture_io.data_dir(name), name)) as f:
        rows = list(csv.reader(f))
    return rows[0][:-1], np.array([[float(v) for v in row[:-1]] for row in rows[1:]])


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def save(name, model, names, X, members, others):
    model.fit(X[members])
    joblib.dump(model, os.path.join(out, f"{name}.joblib"))
    text = lambda row: [repr(float(v)) for v in row]  # noqa: E731
    write(os.path.join(out, f"{name}.train.csv"), names, [text(x) for x in X[members]])
    shown = members[:1000]
    write(os.path.join(out, f"{name}.candidates.csv"), names + ["member"],
          [text(x) + ["1"] for x in X[shown]] + [text(x) + ["0"] for x in X[others[:len(shown)]]])


cancer = load_breast_cancer()
cancer_names = [str(n).replace(" ", "_") for n in cancer.feature_names]
order = np.random.RandomState(0).permutation(len(cancer.data))
save("iso_cancer_200", IsolationForest(random_state=0), cancer_names, cancer.data, order[:200], order[200:])
save("iso_cancer_200_ms64", IsolationForest(max_samples=64, random_state=0), cancer_names, cancer.data, order[:200], order[200:])

pima_names, pima = from_csv("pima_diabetes.csv")
# Every Pima row is trained on, so none is left to be a non-member: no candidates file.
model = IsolationForest(random_state=0).fit(pima)
joblib.dump(model, os.path.join(out, "iso_pima.joblib"))
write(os.path.join(out, "iso_pima.train.csv"), pima_names, [[repr(float(v)) for v in x] for x in pima])

credit_names, credit = from_csv("default_credit_numerical.csv")
order = np.random.RandomState(0).permutation(len(credit))
save("iso_credit_1k", IsolationForest(random_state=0), credit_names, credit, order[:1000], order[1000:])
save("iso_credit_10k", IsolationForest(random_state=0), credit_names, credit, order[:10000], order[10000:])
print("wrote 5 models to", out)
