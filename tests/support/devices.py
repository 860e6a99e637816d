"""Stand-ins for devices this machine does not have."""

from __future__ import annotations

import torch


class DeviceWithoutFloat64(torch.overrides.TorchFunctionMode):
    """Stands in for Apple's MPS on a CPU: any torch call that would make a float64 tensor raises
    the TypeError MPS raises (creating one, or converting to one)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Tensor) and result.dtype == torch.float64:
            raise TypeError("Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support "
                            "float64. Please use float32 instead.")
        return result
