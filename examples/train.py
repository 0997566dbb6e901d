"""Trains the example models that `npm start` and the editor tests analyse.

Run with Debian's scikit-learn and XGBoost (python3-sklearn 1.2.1, python3-xgboost 1.7.4):
    /usr/bin/python3 examples/train.py
The models are typical of what gets published: a default random forest (bootstrap on, and the
seeds that replay it stored in the file), a forest without bootstrap, and a single decision tree,
all on numeric Pima data; and a forest without bootstrap on 100 rows of the binarised COMPAS data
(data/compas_100.csv), whose training set the reconstruction rebuilds. Its categorical groups
(age and priors are one-hot encoded) are declared in models/compas_no_bagging.privacy.json.
Last, an XGBoost model on the Pima data, saved as JSON and dumped as text with its statistics.
"""
import csv
import os
import pickle

import joblib
import numpy as np
import xgboost as xgb
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "data", "diabetes.csv")) as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
X = np.array([[float(v) for v in row[:-1]] for row in body])
y = np.array([int(row[-1]) for row in body])
features = header[:-1]


def name_features(model):
    # Fitting on a pandas DataFrame records the column names; without pandas we set them the same way.
    model.feature_names_in_ = np.array(features, dtype=object)
    return model


# A default forest: bagging is on, but every tree stores the seed that replays its sample.
forest = RandomForestClassifier(n_estimators=20, random_state=0)
name_features(forest.fit(X, y))
joblib.dump(forest, os.path.join(HERE, "models", "diabetes_forest.joblib"), compress=3)

# Without bagging every tree is an exact census of all rows.
no_bagging = RandomForestClassifier(n_estimators=10, bootstrap=False, max_depth=6, random_state=0)
name_features(no_bagging.fit(X, y))
joblib.dump(no_bagging, os.path.join(HERE, "models", "diabetes_no_bagging.joblib"))

# A single tree, pickled.
tree = DecisionTreeClassifier(min_samples_leaf=1, random_state=0)
name_features(tree.fit(X, y))
with open(os.path.join(HERE, "models", "diabetes_tree.pkl"), "wb") as f:
    pickle.dump(tree, f, protocol=4)


# 100 rows of the papers' binarised COMPAS data (14 binary features), sampled once from the
# project's shared data with a fixed seed and kept in data/ so that this script stands alone.
COMPAS_SAMPLE = os.path.join(HERE, "data", "compas_100.csv")
if not os.path.exists(COMPAS_SAMPLE):
    shared = os.environ.get("MPL_DATA", os.path.join(HERE, "..", "..", "shared", "data"))
    if not os.path.exists(os.path.join(shared, "compas.csv")):
        shared = "/work/shared/data"
    with open(os.path.join(shared, "compas.csv")) as f:
        everything = list(csv.reader(f))
    picked = np.random.RandomState(1).choice(len(everything) - 1, 100, replace=False)
    with open(COMPAS_SAMPLE, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([everything[0]] + [everything[1 + i] for i in picked])

with open(COMPAS_SAMPLE) as f:
    rows = list(csv.reader(f))
compas_header, compas_body = rows[0], rows[1:]
compas_X = np.array([[float(v) for v in row[:-1]] for row in compas_body])
compas_y = np.array([int(row[-1]) for row in compas_body])

# Without bagging, on binary features: the stored counts pin the training rows down.
compas = RandomForestClassifier(n_estimators=10, bootstrap=False, random_state=1).fit(compas_X, compas_y)
compas.feature_names_in_ = np.array(compas_header[:-1], dtype=object)
joblib.dump(compas, os.path.join(HERE, "models", "compas_no_bagging.joblib"))

# Gradient boosting (Debian's python3-xgboost 1.7.4): tree 0's hessian sums count the rows and
# positives of every leaf, and later trees' sums tie each row to its leaves. The text dump with
# statistics repeats those sums next to every node.

booster = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "tree_method": "exact", "nthread": 1, "seed": 0},
                    xgb.DMatrix(X, label=y, feature_names=features), num_boost_round=20)
booster.save_model(os.path.join(HERE, "models", "diabetes_xgb.json"))
booster.dump_model(os.path.join(HERE, "models", "diabetes_xgb.dump.txt"), with_stats=True)
