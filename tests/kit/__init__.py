"""Tests of the adapter kits: jhyap_kit, its example, the JavaScript kit."""
