"""The first listing of the DeepLearning.scala paper: guess the next number of a sequence.

A linear model (three weights and a bias) learns from two sequences, (3, 4, 5) -> 6 and
(13, 19, 25) -> 31, with 500 iterations of per-sample SGD fused into the compiled adjoint by
`jitad.train_step`, then guesses the number after (42, 43, 44).

    python examples/guess_next_number.py

A caveat the paper glosses over: two examples cannot pin down four parameters. Every model in
a two-dimensional family fits both exactly; the "sequence rule" next = 2 * last - previous is
the minimum-norm one without a bias and would answer 45, but the data are badly conditioned
(singular values ~42 and ~0.6), so 500 steps of gradient descent from zero fit the examples
(loss < 0.1) while still answering about 65. The script prints both numbers.
"""
import numpy as np

import jitad

QUESTIONS = np.array([[3.0, 4.0, 5.0], [13.0, 19.0, 25.0]])
ANSWERS = np.array([6.0, 31.0])
QUERY = np.array([42.0, 43.0, 44.0])


def squared_loss(weights, bias, question, answer):
    guess = np.dot(question, weights) + bias[0]
    return (guess - answer) ** 2


def train(iterations=500, lr=0.0007):
    weights = np.zeros(3)
    bias = np.zeros(1)
    step = jitad.train_step(squared_loss, wrt=("weights", "bias"), optimizer=jitad.optim.SGD(lr=lr))
    state = step.init(weights, bias)
    loss = 0.0
    for _ in range(iterations):
        loss = 0.0
        for q, a in zip(QUESTIONS, ANSWERS):
            loss += step(weights, bias, q, a, state)
    return weights, bias, loss, step


def main():
    weights, bias, loss, step = train()
    guess = float(np.dot(QUERY, weights) + bias[0])
    rule = float(np.dot(QUERY, np.linalg.pinv(QUESTIONS) @ ANSWERS))
    print(f"loss after 500 iterations {loss:.4f}; weights {np.round(weights, 3)}, bias {bias[0]:.3f}")
    print(f"(42, 43, 44) -> {guess:.2f}   (the minimum-norm exact fit without a bias says {rule:.2f})")
    print()
    print("The compiled training step (jitad.train_step(...).source()):")
    print(step.source())


if __name__ == "__main__":
    main()
