#!/usr/bin/python3
"""Trains the DRAFT grid for `npm run bench` (issue 3, item 9) into OUT_DIR: scikit-learn 1.2.1
random forests on N=100 rows sampled from COMPAS, Adult and Default Credit (the DRAFT paper's
binarised data sets in ../shared/data), with 1, 10 and 100 trees, max_depth 3, 5, 10 and None,
bootstrap off and on, for several sampling seeds. Each model is saved with joblib beside the rows
it was trained on (`<name>.train.csv`), and OUT_DIR/manifest.json lists them with their settings
and the data set's one-hot groups (the same declarations as the test fixtures).

    /usr/bin/python3 test/bench/make-draft-grid.py OUT_DIR [SEEDS]

Deterministic; models already present are not trained again.
"""
import json
import os
import sys

import joblib
import numpy as np
from sklearn.ensemble import RandomForestClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures", "reconstruction"))
from generate import GROUPS, check_groups, load  # noqa: E402  (shared data loading and groups)

DATASETS = ("compas", "adult", "default_credit")
TREES = (1, 10, 100)
DEPTHS = (3, 5, 10, None)
ROWS = 100


def main():
    out_dir = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for data in DATASETS:
        header, table = load(data)
        check_groups(data, table)
        for seed in range(seeds):
            rows = table[np.random.RandomState(1000 + seed).choice(len(table), ROWS, replace=False)]
            X, y = rows[:, :-1].astype(np.float64), rows[:, -1]
            truth = f"{data}_s{seed}.train.csv"
            truth_path = os.path.join(out_dir, truth)
            if not os.path.exists(truth_path):
                with open(truth_path, "w") as f:
                    f.write(",".join(header) + "\n")
                    f.writelines(",".join(str(v) for v in row) + "\n" for row in rows.tolist())
            for trees in TREES:
                for depth in DEPTHS:
                    for bootstrap in (False, True):
                        name = f"{data}_t{trees}_d{depth or 'none'}_{'bag' if bootstrap else 'nobag'}_s{seed}"
                        path = os.path.join(out_dir, f"{name}.joblib")
                        if not os.path.exists(path):
                            model = RandomForestClassifier(n_estimators=trees, max_depth=depth, bootstrap=bootstrap, random_state=seed)
                            joblib.dump(model.fit(X, y), path)
                        manifest.append({
                            "name": name, "model": f"{name}.joblib", "truth": truth, "dataset": data,
                            "estimator": "RandomForestClassifier", "trees": trees, "max_depth": depth,
                            "bootstrap": bootstrap, "seed": seed, "rows": ROWS, "groups": GROUPS[data],
                        })
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} grid models in {out_dir}")


if __name__ == "__main__":
    main()
