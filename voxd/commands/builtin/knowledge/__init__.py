"""Answers: questions, research, the weather, the news, sums, jokes, what voxd remembers."""
