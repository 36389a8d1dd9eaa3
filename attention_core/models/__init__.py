"""Trained and pretrained attention: toy tasks, training, head scores, GPT-2 and its tokenizer."""
