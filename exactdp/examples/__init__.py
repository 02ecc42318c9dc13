"""Built-in examples."""

from .pricing import PRICING

__all__ = ["PRICING"]
