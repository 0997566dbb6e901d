"""Trains the example models that `npm start` and the editor tests analyse.

Run with Debian's scikit-learn (python3-sklearn 1.2.1):  /usr/bin/python3 examples/train.py
The models are typical of what gets published: a default random forest (bootstrap on, and the
seeds that replay it stored in the file), a forest without bootstrap, and a single decision tree.
"""
import csv
import os
import pickle

import joblib
import numpy as np
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
