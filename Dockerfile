# Paperlab in a container: docker build -t paperlab . && docker run -p 8501:8501 paperlab
# On x86_64, PyPI's torch wheel is the CUDA build; for a smaller CPU-only image pass the
# PyTorch CPU wheel index: docker build --build-arg PIP_EXTRA_INDEX_URL=<index> -t paperlab .
FROM python:3.11.7-slim-bookworm

ARG PIP_EXTRA_INDEX_URL=
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} \
    PYTHONPATH=/app \
    VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false

# EGL and Mesa's software rasteriser: without them VTK (PyVista) segfaults instead of raising.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libegl1 libgl1-mesa-dri \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 paperlab
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=paperlab:paperlab . .
USER paperlab

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4).read() != b'ok')"
CMD ["streamlit", "run", "app/main.py", "--server.address=0.0.0.0"]
