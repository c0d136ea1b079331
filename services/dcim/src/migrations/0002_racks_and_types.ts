import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history (docs/decisions/005-frozen-migrations.md): manufacturers,
 * rack roles, device roles, platforms, racks and rack reservations. Never
 * edit it and never import the declarations here; add a migration.
 */
export function racksAndTypesStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."manufacturer" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."rack_role" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "color" VARCHAR(6),
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."device_role" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "color" VARCHAR(6),
      "vm_role" BOOLEAN,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."platform" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "manufacturer_id" BIGINT REFERENCES ${s}."manufacturer" ("id") ON DELETE RESTRICT,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "platform_manufacturer_id_idx" ON ${s}."platform" ("manufacturer_id")`,
    // tenant_id names a tenancy tenant: another service's object, so no foreign key
    `CREATE TABLE ${s}."rack" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "_name" VARCHAR(100) NOT NULL DEFAULT '',
      "facility_id" VARCHAR(50),
      "site_id" BIGINT NOT NULL REFERENCES ${s}."site" ("id") ON DELETE RESTRICT,
      "location_id" BIGINT REFERENCES ${s}."location" ("id") ON DELETE SET NULL,
      "tenant_id" BIGINT,
      "status" VARCHAR(50) NOT NULL,
      "role_id" BIGINT REFERENCES ${s}."rack_role" ("id") ON DELETE RESTRICT,
      "serial" VARCHAR(50) NOT NULL DEFAULT '',
      "asset_tag" VARCHAR(50) UNIQUE,
      "type" VARCHAR(50) NOT NULL DEFAULT '',
      "width" INTEGER NOT NULL,
      "u_height" INTEGER NOT NULL,
      "starting_unit" INTEGER NOT NULL,
      "weight" DECIMAL(8,2),
      "max_weight" INTEGER,
      "weight_unit" VARCHAR(50) NOT NULL DEFAULT '',
      "desc_units" BOOLEAN,
      "outer_width" INTEGER,
      "outer_depth" INTEGER,
      "outer_unit" VARCHAR(50) NOT NULL DEFAULT '',
      "mounting_depth" INTEGER,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "rack_site_id_idx" ON ${s}."rack" ("site_id")`,
    `CREATE INDEX "rack_location_id_idx" ON ${s}."rack" ("location_id")`,
    `CREATE INDEX "rack_tenant_id_idx" ON ${s}."rack" ("tenant_id")`,
    `CREATE INDEX "rack_role_id_idx" ON ${s}."rack" ("role_id")`,
    `CREATE INDEX "rack__name_idx" ON ${s}."rack" ("_name")`,
    `CREATE UNIQUE INDEX "rack_location_id_name_uniq" ON ${s}."rack" ("location_id", "name")`,
    `CREATE UNIQUE INDEX "rack_location_id_facility_id_uniq" ON ${s}."rack" ("location_id", "facility_id")`,
    // user_id names a users-service user and tenant_id a tenancy tenant: other services' objects, so no foreign keys
    `CREATE TABLE ${s}."rack_reservation" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "rack_id" BIGINT NOT NULL REFERENCES ${s}."rack" ("id") ON DELETE CASCADE,
      "units" BIGINT[] NOT NULL,
      "user_id" BIGINT NOT NULL,
      "tenant_id" BIGINT,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "comments" TEXT NOT NULL DEFAULT '',
      "custom_field_data" JSONB NOT NULL DEFAULT '{}',
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "rack_reservation_rack_id_idx" ON ${s}."rack_reservation" ("rack_id")`,
    `CREATE INDEX "rack_reservation_user_id_idx" ON ${s}."rack_reservation" ("user_id")`,
    `CREATE INDEX "rack_reservation_tenant_id_idx" ON ${s}."rack_reservation" ("tenant_id")`,
  ];
}

export const racksAndTypes: Migration = {
  name: '0002_racks_and_types',
  up: ({ qi, schema }) => runStatements(qi, racksAndTypesStatements(schema)),
};
