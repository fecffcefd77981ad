"""Functions for tests/test_coverage.py: calls whose derivative jitad refuses (each marks the
refused line with `# ERR: <text the error names>`), and compositions of issue 12's primitives
people write. Every function takes float arguments; the first ones are differentiated."""
import numpy as np
import scipy.integrate
import scipy.special
import scipy.stats


# -- refused: the derivative in an order or a shape parameter has no closed form -------------

def gammainc_in_its_shape(a, x):
    return np.sum(scipy.special.gammainc(a, x) * x)  # ERR: argument 'a'


def betainc_in_its_shape(b, x):
    y = x * 0.5
    return np.sum(scipy.special.betainc(2.0, b, y))  # ERR: argument 'b'


def bessel_in_its_order(v, x):
    return np.sum(scipy.special.jv(v * 2.0, x) + scipy.special.iv(1.5, x))  # ERR: argument 'v'


def chi2_cdf_in_df(df, x):
    return np.sum(scipy.stats.chi2.cdf(x, df))  # ERR: argument 'df'


def t_cdf_in_df(df, x):
    return np.sum(scipy.stats.t.logcdf(x, df, 0.5))  # ERR: argument 'df'


def refused_operand_unused(a, x):
    """A refused operand whose result nothing reads: no error (the derivative is not needed)."""
    y = scipy.special.gammainc(a, x)
    return np.sum(x * a) + 0.0 * float(len(y))


# -- refused: SciPy's ODE solvers ------------------------------------------------------------

def integrates_with_odeint(k, x0):
    def rhs(u, t):
        return -k * u
    ts = np.linspace(0.0, 1.0, 5)
    return np.sum(scipy.integrate.odeint(rhs, x0, ts))  # ERR: odeint


def integrates_with_solve_ivp(k, x0):
    def rhs(t, u):
        return -k * u
    sol = scipy.integrate.solve_ivp(rhs, (0.0, 1.0), x0)  # ERR: solve_ivp
    return np.sum(sol.y)


def integrates_with_a_loop(k, x0):
    """What the refusal suggests instead: the integrator written out (fixed-step RK4)."""
    u = x0 * 1.0
    h = 0.05
    for _ in range(20):
        k1 = -k * u
        k2 = -k * (u + 0.5 * h * k1)
        k3 = -k * (u + 0.5 * h * k2)
        k4 = -k * (u + h * k3)
        u = u + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u)


# -- complex values as intermediates: what people write ---------------------------------------

def power_spectrum_loss(x, target):
    """The squared error of a signal's power spectrum."""
    power = np.abs(np.fft.rfft(x)) ** 2
    return np.sum((power - target) ** 2)


def spectral_convolution(x, kernel):
    """A circular convolution through the FFT (rfft, product, irfft)."""
    n = x.shape[0]
    y = np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(kernel), n)
    return np.sum(y ** 2) + y[0]


def damped_oscillators(omega, gamma, t):
    """A sum of damped complex oscillators and its spectrum's energy."""
    z = np.exp((1j * omega - gamma) * t)
    s = np.sum(z * np.exp(0.3j * t))
    return np.abs(s) ** 2 + np.real(z[-1]) + np.sum(np.abs(np.fft.fft(z)) ** 2) / t.shape[0]


def eigen_spectrum(A):
    """The eigenvalues of a non-symmetric matrix: their squared moduli and real parts."""
    w, V = np.linalg.eig(A)
    return np.sum(np.abs(w) ** 2) + np.sum(np.real(w) ** 3)


def complex_argument(z, x):  # ERR: complex argument
    return np.sum(np.abs(z * x))


def complex_output(x):  # ERR: returns a complex value
    return np.sum(np.exp(1j * x))


def complex_data(x, z):
    """A complex array passed as data (not differentiated) is fine."""
    return np.sum(np.abs(z * x) ** 2) + np.real(np.sum(z)) * x[0]


# -- a form compiled mode refuses is refused by eager forward mode too -----------------------

def norm_of_order_three(x):
    # a matrix's ord=3 (no matrix norm: NumPy refuses it too; a vector's ord=3 is supported)
    return np.linalg.norm(np.outer(x, x), 3)  # ERR: norm(ord=3)
