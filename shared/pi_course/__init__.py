"""pi-course: the generator and command line that turn one marked source into checkpoints."""

__all__ = ["__version__"]
__version__ = "0.1.0"
