"""Monte Carlo: latent-copula simulation, calibration grids, prospective validation and bootstrap power curves."""

from llm_power_verified.simulation.embedding import CopulaBetaQuantile, embedding_power_grid
from llm_power_verified.simulation.grids import (
    CopulaCells,
    calibration_table_2,
    copula_cells,
    monte_carlo_se,
    simulate_binary_counts,
    simulate_graded,
)
from llm_power_verified.simulation.moments import latent_pair_moments
from llm_power_verified.simulation.prospective import (
    ProspectiveValidation,
    bootstrap_power_curve_binary,
    bootstrap_power_curve_graded,
    prospective_validation,
)

__all__ = [
    "CopulaBetaQuantile",
    "CopulaCells",
    "ProspectiveValidation",
    "bootstrap_power_curve_binary",
    "bootstrap_power_curve_graded",
    "calibration_table_2",
    "copula_cells",
    "embedding_power_grid",
    "latent_pair_moments",
    "monte_carlo_se",
    "prospective_validation",
    "simulate_binary_counts",
    "simulate_graded",
]
