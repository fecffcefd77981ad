import numpy as np, scipy.stats, jitad, time
from scipy.stats import t as student, multivariate_normal
from tests.harness import central_fd
def f1(x, a, b):
    s = scipy.stats.t.logpdf(x, a + 1.0, b, 1.5) + student.pdf(x, a + 1.0, scale=b)
    s = s + scipy.stats.gamma.logpdf(x + 3.0, a + 1.0, 0.5, b) + scipy.stats.gamma.pdf(x + 3.0, a + 1.0)
    s = s + scipy.stats.beta.logpdf(0.3 + 0.1 * x, a, b) + scipy.stats.beta.pdf(0.3 + 0.1 * x, a + 1.0, b + 1.0)
    s = s + scipy.stats.expon.logpdf(x + 3.0, 0.5, b) + scipy.stats.expon.pdf(x + 3.0, scale=b) + scipy.stats.expon.cdf(x + 3.0, 0.1, b)
    s = s + scipy.stats.laplace.logpdf(x, a, b) + scipy.stats.laplace.pdf(x, a) + scipy.stats.laplace.cdf(x, a, b)
    s = s + scipy.stats.logistic.logpdf(x, a, b) + scipy.stats.logistic.pdf(x, a) + scipy.stats.logistic.cdf(x, a, b)
    s = s + scipy.stats.cauchy.logpdf(x, a, b) + scipy.stats.cauchy.pdf(x, a) + scipy.stats.cauchy.cdf(x, a, b)
    s = s + scipy.stats.poisson.logpmf(3.0, a + b) + scipy.stats.poisson.pmf(2.0, b)
    return s
def f2(x, m, C):
    S = C @ C.T + np.eye(3)
    return multivariate_normal.logpdf(x[0], m, S) + np.sum(scipy.stats.multivariate_normal.logpdf(x, m, S) * np.array([1.0, -2.0]))
rng = np.random.default_rng(1)
for fn, args in ((f1, (0.3, 0.8, 1.3)), (f2, (rng.normal(size=(2, 3)), rng.normal(size=3), rng.normal(size=(3, 3))))):
    wrt = tuple(range(len(args)))
    for mode in ('eager', 'compiled'):
        t = time.time()
        v, g = jitad.value_and_grad(fn, wrt=wrt, mode=mode)(*args)
        ref = central_fd(fn, list(args), wrt, eps=1e-5, order=4)
        print(mode, v - fn(*args), [float(np.max(np.abs(a - b))) for a, b in zip(g, ref)], time.time() - t)
