"""Which names a collection's titles share: the collection's own, not things to research."""

from research_studio.knowledge.title_words import TitleWords

TITLES = ["git-clean(1) Manual Page", "git-push(1) Manual Page", "git-stash(1) Manual Page",
          "Git User Manual", "Git 2.40 Release Notes", "Git 2.41 Release Notes",
          "Everyday Git", "gitfaq(7) Manual Page"]


def test_a_name_in_at_least_the_share_of_titles_names_the_collection():
    titles = TitleWords.of(TITLES)
    assert titles.documents == 8
    assert titles.titles_naming("Manual Page") == 4
    assert titles.names_collection("Manual Page", 0.25)
    assert titles.names_collection("Git", 0.25)  # 5 of 8
    assert not titles.names_collection("Release Notes", 0.3)  # 2 of 8
    assert titles.names_collection("Release Notes", 0.25)


def test_a_name_in_one_title_is_that_documents_own_whatever_the_share():
    titles = TitleWords.of(["SQLite Release History", "How SQLite Is Tested"])
    assert not titles.names_collection("Release History", 0.25)  # one title of two
    assert titles.names_collection("SQLite", 0.25)
    assert not TitleWords.of(["Only Document"]).names_collection("Only Document", 0.25)


def test_words_or_titles_that_name_nothing_are_not_the_collections():
    titles = TitleWords.of(TITLES)
    assert titles.titles_naming("") == 0
    assert not titles.names_collection("", 0.25)
    assert not titles.names_collection("HEAD", 0.25)  # in no title
    assert not TitleWords.of([]).names_collection("Git", 0.25)
