"""matplotlib.animation, as cudash gives it (written for cudash, after
matplotlib 3.10's `animation.py`): `ArtistAnimation` (a list of frames,
each a list of artists shown together) and `FuncAnimation` (a function
that draws frame after frame), played in a notebook by `to_jshtml()`: each
frame drawn as cudash draws a figure, embedded as a PNG in an HTML player
(a slider, play and pause buttons; matplotlib's player has more controls).
cudash writes no video or GIF: `save` and `to_html5_video` say so."""

import itertools

import matplotlib
import _cudash

__all__ = ["Animation", "TimedAnimation", "ArtistAnimation", "FuncAnimation",
           "PillowWriter", "FFMpegWriter", "writers"]


class Animation:
    """What both animations share: the figure, its frames drawn in turn,
    and their HTML."""

    def __init__(self, fig, event_source=None, blit=False):
        self._fig = fig
        self._blit = blit
        self.event_source = event_source

    def new_frame_seq(self):
        return iter(range(0))

    def _draw_frame(self, frame):
        pass

    def _frame_pixels(self):
        """Each frame drawn, as the figure's pixels."""
        made = []
        for frame in self.new_frame_seq():
            self._draw_frame(frame)
            made.append(self._fig._canvas())
        return made

    def to_jshtml(self, fps=None, embed_frames=True, default_mode=None):
        """The frames in an HTML player: a slider and play/pause buttons."""
        interval = getattr(self, "_interval", 200)
        if fps is not None:
            interval = 1000.0 / fps
        uris = [_cudash.png_data_uri(p) for p in self._frame_pixels()]
        if not uris:
            return "<div>(an animation of no frames)</div>"
        key = "anim%x" % id(self)
        frames = ",".join('"%s"' % u for u in uris)
        loop = "true" if getattr(self, "_repeat", True) else "false"
        return (
            f'<div id="{key}">'
            f'<img id="{key}_img"/><br/>'
            f'<input id="{key}_slider" type="range" min="0" max="{len(uris) - 1}" value="0"/>'
            f'<button id="{key}_play">Play</button><button id="{key}_pause">Pause</button>'
            "<script>(function(){"
            f"var frames=[{frames}];var k=0;var timer=null;"
            f'var img=document.getElementById("{key}_img");'
            f'var slider=document.getElementById("{key}_slider");'
            "function show(i){k=i;img.src=frames[i];slider.value=i;}"
            "show(0);slider.oninput=function(){show(parseInt(slider.value));};"
            f'document.getElementById("{key}_play").onclick=function(){{'
            "if(timer)return;timer=setInterval(function(){"
            f"if(k+1<frames.length){{show(k+1);}}else if({loop}){{show(0);}}"
            f"else{{clearInterval(timer);timer=null;}}}},{interval});}};"
            f'document.getElementById("{key}_pause").onclick=function(){{'
            "clearInterval(timer);timer=null;};"
            "})();</script></div>"
        )

    def to_html5_video(self, embed_limit=None):
        raise RuntimeError("Requested MovieWriter (ffmpeg) not available")

    def _repr_html_(self):
        fmt = matplotlib.rcParams.get("animation.html", "none")
        if fmt == "jshtml":
            return self.to_jshtml()
        if fmt == "html5":
            return self.to_html5_video()
        return None

    def save(self, filename, writer=None, fps=None, dpi=None, codec=None, bitrate=None,
             extra_args=None, metadata=None, extra_anim=None, savefig_kwargs=None, *,
             progress_callback=None):
        raise ValueError(
            f"cudash writes no animation files ({filename}): it has no GIF or video "
            "encoder; to_jshtml() gives the frames in an HTML player, and "
            "fig.savefig() writes one frame as a PNG"
        )

    def pause(self):
        pass

    def resume(self):
        pass


class TimedAnimation(Animation):
    def __init__(self, fig, interval=200, repeat_delay=0, repeat=True, event_source=None, *args, **kwargs):
        self._interval = interval
        self._repeat_delay = 0 if repeat_delay is None else repeat_delay
        self._repeat = repeat
        super().__init__(fig, event_source=event_source, *args, **kwargs)


class ArtistAnimation(TimedAnimation):
    """Frames given as lists of artists: frame k shows its artists alone."""

    def __init__(self, fig, artists, *args, **kwargs):
        self._framedata = [list(f) if isinstance(f, (list, tuple)) else [f] for f in artists]
        super().__init__(fig, *args, **kwargs)
        # As matplotlib's first draw: every frame's artists hidden.
        for f in self._framedata:
            for artist in f:
                artist.set_visible(False)
        if self._framedata:
            self._draw_frame(self._framedata[-1])

    def new_frame_seq(self):
        return iter(self._framedata)

    def _draw_frame(self, artists):
        for f in self._framedata:
            for artist in f:
                artist.set_visible(False)
        for artist in artists:
            artist.set_visible(True)


class FuncAnimation(TimedAnimation):
    """Frames drawn by `func(frame, *fargs)` for each of `frames` (an int n
    for range(n), an iterable, or a function giving one; None counts up,
    `save_count` frames of it, 100 unless given)."""

    def __init__(self, fig, func, frames=None, init_func=None, fargs=None, save_count=None, *,
                 cache_frame_data=True, **kwargs):
        self._func = func
        self._init_func = init_func
        self._args = tuple(fargs) if fargs else ()
        self._save_count = save_count
        if frames is None:
            self._frames = None
        elif callable(frames):
            self._frames = frames
        elif isinstance(frames, int):
            self._frames = range(frames)
        else:
            self._frames = list(frames)
        super().__init__(fig, **kwargs)
        if self._init_func is not None:
            self._init_func()

    def new_frame_seq(self):
        if self._frames is None:
            count = 100 if self._save_count is None else self._save_count
            return itertools.islice(itertools.count(), count)
        if callable(self._frames):
            made = self._frames()
            if self._save_count is not None:
                return itertools.islice(made, self._save_count)
            return iter(made)
        return iter(self._frames)

    def _draw_frame(self, framedata):
        self._func(framedata, *self._args)


class AbstractMovieWriter:
    def __init__(self, fps=5, metadata=None, codec=None, bitrate=None, *args, **kwargs):
        self.fps = fps


class PillowWriter(AbstractMovieWriter):
    pass


class FFMpegWriter(AbstractMovieWriter):
    pass


class _Writers:
    def is_available(self, name):
        return False

    def list(self):
        return []

    def __getitem__(self, name):
        raise RuntimeError(f"Requested MovieWriter ({name}) not available")


writers = _Writers()
