#!/usr/bin/python3
"""Trains the models of the numeric-forest benchmark (test/bench/numeric-forests.bench.ts, issue 12):
forests as people train them, on all the rows of numeric data sets, with scikit-learn's defaults.

Data sets: breast cancer (569 rows, 30 features) and wine (178 rows, 13 features, 3 classes) as
scikit-learn ships them; Pima Indians Diabetes (768 rows) and Stroke (5,110 rows less those with no
BMI, encoded as test/fixtures/numeric/generate.py does) from ../shared/data; Default Credit's
numeric columns at 1,000 and 10,000 rows (a seeded sample). Models per data set:
`RandomForestClassifier()` (100 trees, bootstrap, seeds stored), `RandomForestClassifier(bootstrap=False)`
and `ExtraTreesClassifier()` (no bootstrap by default), each with random_state 0.

Writes `<name>.joblib`, the training rows as float64 CSV (`<name>.train.csv`, features then label)
and `manifest.json` (the fields test/support/numeric-truth.ts reads, population statistics over
the whole data set) into OUT_DIR. Models already there are kept.

    /usr/bin/python3 test/bench/make-numeric-forests.py OUT_DIR [name ...]

Debian's python3-sklearn 1.2.1. Deterministic.
"""
import csv
import os
import sys

import joblib
import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture_io  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "fixtures", "numeric"))
DATA = fixture_io.data_dir("pima_diabetes.csv")


def from_csv(name):
    with open(os.path.join(DATA, name)) as f:
        rows = list(csv.reader(f))
    return rows[0][:-1], np.array([[float(v) for v in row] for row in rows[1:]])


def stroke():
    import generate  # test/fixtures/numeric/generate.py: the same encoding as the fixtures
    header, table = generate.load_stroke()
    return header[:-1], np.array(table)


def sklearn_set(loader):
    data = loader()
    table = np.column_stack([data.data, data.target])
    return [str(n).replace(" ", "_") for n in data.feature_names], table


def credit(rows):
    def load():
        header, table = from_csv("default_credit_numerical.csv")
        return header, table[np.random.RandomState(0).choice(len(table), rows, replace=False)]
    return load


DATASETS = {
    "breast_cancer": lambda: sklearn_set(load_breast_cancer),
    "pima": lambda: from_csv("pima_diabetes.csv"),
    "wine": lambda: sklearn_set(load_wine),
    "credit_1k": credit(1000),
    "credit_10k": credit(10000),
    "stroke": stroke,
}
POPULATION = {"credit_1k": lambda: from_csv("default_credit_numerical.csv"), "credit_10k": lambda: from_csv("default_credit_numerical.csv")}
MODELS = {
    "rf": lambda: RandomForestClassifier(random_state=0),
    "rf_nobootstrap": lambda: RandomForestClassifier(bootstrap=False, random_state=0),
    "extra_trees": lambda: ExtraTreesClassifier(random_state=0),
}


def text(value):
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def main():
    out_dir = sys.argv[1]
    wanted = set(sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for data_name, load in DATASETS.items():
        header, table = load()
        population = (POPULATION.get(data_name) or (lambda: (header, table)))()[1][:, :-1]
        X, y = table[:, :-1], table[:, -1].astype(np.int64)
        for model_name, make in MODELS.items():
            name = f"{data_name}_{model_name}"
            if wanted and name not in wanted:
                continue
            model_path = os.path.join(out_dir, f"{name}.joblib")
            truth_path = os.path.join(out_dir, f"{name}.train.csv")
            estimator = make()
            if not (os.path.exists(model_path) and os.path.exists(truth_path)):
                joblib.dump(estimator.fit(X, y), model_path)
                fixture_io.write_rows(truth_path, header + ["label"], [[text(v) for v in row] + [int(label)] for row, label in zip(X.tolist(), y)])
            manifest.append({
                "name": name,
                "model": os.path.basename(model_path),
                "truth": os.path.basename(truth_path),
                "dataset": data_name,
                "estimator": type(estimator).__name__,
                "bootstrap": bool(estimator.bootstrap),
                "trees": estimator.n_estimators,
                "max_depth": None,
                "seed": 0,
                "rows": int(len(X)),
                "groups": [],
                "population": fixture_io.population(population),
            })
    fixture_io.write_manifest(out_dir, manifest)


if __name__ == "__main__":
    main()
