"""Offline evaluation of the research pipeline on normalised QA datasets and rubric tasks.

``datasets`` validates input files, ``corpus`` pools their paragraphs into one knowledge
base, ``runner`` researches each question (resumably), ``metrics`` scores one result,
``aggregate`` summarises per mode, ``report`` and ``plots`` write the outputs, and
``rubric`` grades long-form reports with a judge model.
"""
