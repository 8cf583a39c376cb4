"""semvar._mmlu_subjects: the MMLU subject -> (test items, subcategory, category) map."""

from collections import Counter, defaultdict

from semvar._mmlu_subjects import SUBJECTS

CATEGORIES = {"STEM", "humanities", "social sciences", "other (business, health, misc.)"}


def test_57_subjects_and_14042_test_items():
    assert len(SUBJECTS) == 57
    assert sum(n for n, _, _ in SUBJECTS.values()) == 14042
    assert all(isinstance(n, int) and n >= 100 for n, _, _ in SUBJECTS.values())  # every subject has 100 or more


def test_subject_names_are_the_dataset_configurations():
    for name in SUBJECTS:
        assert name == name.strip().lower() and " " not in name and name.replace("_", "").isalpha()
    assert list(SUBJECTS) == sorted(SUBJECTS)


def test_category_sizes_as_stated():
    counts = Counter(cat for _, _, cat in SUBJECTS.values())
    assert set(counts) == CATEGORIES
    assert counts == {"STEM": 18, "humanities": 13, "social sciences": 12, "other (business, health, misc.)": 14}


def test_each_subcategory_lies_in_one_category():
    parents = defaultdict(set)
    for _, sub, cat in SUBJECTS.values():
        parents[sub].add(cat)
    assert all(len(cats) == 1 for cats in parents.values()), dict(parents)
    assert len(parents) == 17  # the 17 subcategories of Hendrycks et al. (2021)
