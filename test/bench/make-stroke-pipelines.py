#!/usr/bin/python3
"""Forests fitted the way tutorials fit them on the raw Stroke data (../shared/data/stroke.csv, 5,110
rows): a ColumnTransformer imputes and scales the numbers and one-hot encodes the strings, the forest
comes last, and the raw CSV is all the user has. For the figures in docs/membership.md ("Pipelines
and raw data"): membership of every row of the raw file, members the stratified half the Pipeline
was fitted on, columns turned into the model's values by the Pipeline's own fitted steps.

  stroke_rf_nobs.joblib       RandomForestClassifier(bootstrap=False)
  stroke_rf_default.joblib    RandomForestClassifier()  (bootstrap, seeds stored)
  stroke_candidates.csv       every row as in stroke.csv (N/A BMIs, strings), plus `member`

    /usr/bin/python3 test/bench/make-stroke-pipelines.py OUT_DIR
    for m in stroke_rf_nobs stroke_rf_default; do
      node dist/cli.js OUT_DIR/$m.joblib --membership OUT_DIR/stroke_candidates.csv --label stroke \
        --members-column member --budget 30 --fail-on never
    done

Debian's python3-sklearn 1.2.1 and pandas 1.5.3; fixed seeds.
"""
import os
import sys

import joblib
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import fixture_io  # noqa: E402


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    frame = pd.read_csv(os.path.join(fixture_io.data_dir("stroke.csv"), "stroke.csv"))
    train, _ = train_test_split(frame, test_size=0.5, random_state=0, stratify=frame["stroke"])
    numbers = ["age", "avg_glucose_level", "bmi"]
    strings = ["gender", "ever_married", "work_type", "Residence_type", "smoking_status"]
    prep = ColumnTransformer([
        ("num", Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]), numbers),
        ("cat", OneHotEncoder(handle_unknown="ignore"), strings),
    ], remainder="passthrough")
    X, y = train.drop(columns=["stroke", "id"]), train["stroke"]
    for name, forest in [("stroke_rf_nobs", RandomForestClassifier(bootstrap=False, random_state=0)),
                         ("stroke_rf_default", RandomForestClassifier(random_state=0))]:
        joblib.dump(Pipeline([("prep", prep), ("rf", forest)]).fit(X, y), os.path.join(out_dir, f"{name}.joblib"))
    frame["member"] = frame.index.isin(train.index).astype(int)
    frame.to_csv(os.path.join(out_dir, "stroke_candidates.csv"), index=False)
    print(f"wrote 2 Pipelines ({len(train)} training rows) and {len(frame)} candidates to {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
