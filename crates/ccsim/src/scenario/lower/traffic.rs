//! From the background's spec to the plain pieces its traffic source is built
//! from (its intensity profile and transfer sizes), and the flow entry its TCP
//! transfers are lowered from like any flow's.

use crate::scenario::{BackgroundSpec, FlowSpec, InterpolationSpec, SizeDistSpec};
use crate::traffic::intensity::{Intensity, Interpolation};
use crate::traffic::sizes::SizeDist;

/// The background's load over time (`background.profile`, `interpolation`).
pub fn intensity(b: &BackgroundSpec) -> Intensity {
    Intensity::new(
        b.profile.iter().map(|(t, m)| (t.ns(), *m)).collect(),
        match b.interpolation {
            InterpolationSpec::Step => Interpolation::Step,
            InterpolationSpec::Linear => Interpolation::Linear,
        },
    )
}

/// The sizes of a background's transfers (`background.size`).
pub fn size_dist(b: &BackgroundSpec) -> SizeDist {
    let mean = b.size.mean.0 as f64;
    match b.size.dist {
        SizeDistSpec::Pareto => SizeDist::Pareto { mean, alpha: b.size.shape },
        SizeDistSpec::Lognormal => SizeDist::Lognormal { mean, sigma: b.size.sigma },
        SizeDistSpec::Exponential => SizeDist::Exponential { mean },
        SizeDistSpec::Fixed => SizeDist::Fixed { bytes: mean },
    }
}

/// The flow entry every background TCP transfer is built from (start and size set per transfer).
pub fn background_flow(b: &BackgroundSpec) -> FlowSpec {
    FlowSpec {
        cc: b.cc.clone(),
        cc_params: b.cc_params.clone(),
        count: 1,
        direction: b.direction,
        route: b.route.clone(),
        ack_route: b.ack_route.clone(),
        start: Default::default(),
        stop: None,
        size: None,
        access_delay: Default::default(),
        tcp: b.tcp.clone(),
    }
}
